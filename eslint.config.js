// eslint (flat config): typescript-eslint's recommended rules, which the code follows.
// Formatting is prettier's (.prettierrc.json); eslint-config-prettier turns off the rules it owns.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  globalIgnores([
    ".wrangler/",
    "coverage/",
    "dist/",
    "test-artifacts/",
    "migrations/",
    "test/fixtures/",
    "bench/results/",
    "public/swagger-ui/",
    // Generated: `npm run types` and `npm run bridge:types` write them.
    "worker-configuration.d.ts",
    "bridge/service/generated/",
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // A leading _ names what is left out on purpose (`const { replayed: _, ...rest } = …`, an unused parameter).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["public/**/*.js"],
    // SwaggerUIBundle: the global of swagger-ui-bundle.js, loaded before docs.js by docs.html.
    languageOptions: { globals: { ...globals.browser, SwaggerUIBundle: "readonly" } },
  },
  prettier,
);
