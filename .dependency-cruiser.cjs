/**
 * The layering of src/, checked by `npm run lint:layers` (part of `npm test`). Lowest first:
 *
 *   credit/ (pure)  →  db/  →  http/  →  snapshots/, stats/  →  services/  →  jobs/ | routes/  →  web/  →  app.ts  →  index.ts
 *
 * A module may import its own layer and the layers before it, never a later one; jobs/ and
 * routes/ are siblings that share services/, and do not import each other; web/ uses what
 * routes/ uses (services/, snapshots/, db/, http/params.ts), never a routes/ module. clock.ts (the
 * server's clock), limits.ts (request limits), config.ts (operational settings), log.ts (the JSON
 * log line), env-vars.ts (the variables' schema) and env.ts (binding types, the parsed environment)
 * are leaves every layer but credit/ may use.
 * docs/development.md explains the layers.
 *
 * The bridge (bridge/, a Node CLI) has rooms that follow its data, lowest first:
 *
 *   shared/  →  telling/  →  database/  →  service/  →  write-back/  →  running/  →  command-line/  →  cli.ts
 *
 * and pack/ apart (it builds the package from cli.ts by path). A room may import its own and the
 * rooms before it, never a later one.
 */
const later = (...layers) => `^src/(${layers.join("|")})`;
const LAYER_RULES = [
  [
    "db-below-http",
    "src/db",
    "db/ is storage: it knows nothing of requests, snapshots or callers",
    later("http/", "snapshots/", "stats/", "services/", "jobs/", "routes/", "web/", "app\\.ts", "index\\.ts"),
  ],
  [
    "http-below-snapshots",
    "src/http",
    "http/ is request plumbing (auth, errors, limits): no read model, jobs or handlers",
    later("snapshots/", "stats/", "services/", "jobs/", "routes/", "web/", "app\\.ts", "index\\.ts"),
  ],
  [
    "snapshots-stats-below-services",
    "src/(snapshots|stats)",
    "snapshots/ and stats/ build what is read; they never call a service, a job or a route",
    later("services/", "jobs/", "routes/", "web/", "app\\.ts", "index\\.ts"),
  ],
  [
    "services-below-jobs-and-routes",
    "src/services",
    "a service is what a cron job and a route both call: it calls neither",
    later("jobs/", "routes/", "web/", "app\\.ts", "index\\.ts"),
  ],
  [
    "jobs-not-routes",
    "src/jobs",
    "a cron job never reaches into a route (share it through services/)",
    later("routes/", "web/", "app\\.ts", "index\\.ts"),
  ],
  [
    "routes-not-jobs",
    "src/routes",
    "a route never reaches into a cron job (share it through services/)",
    later("jobs/", "web/", "app\\.ts", "index\\.ts"),
  ],
  [
    "web-below-app",
    "src/web",
    "pages are drawn from the read model and the API's own bodies, never from a job",
    later("jobs/", "app\\.ts", "index\\.ts"),
  ],
  [
    "web-not-routes",
    "src/web",
    "a page never reaches into a route's module: what both read is in services/, snapshots/ or db/",
    later("routes/"),
  ],
  ["app-below-index", "src/app\\.ts", "app.ts builds the HTTP app; index.ts (the Worker entry) wires it to the crons", later("index\\.ts")],
];

const bridgeLater = (...rooms) => `^bridge/(${rooms.join("|")})`;
const BRIDGE_ROOM_RULES = [
  [
    "bridge-shared-below-all",
    "shared",
    "shared/ (errors, exit codes, the version) is what every room uses, so it uses none",
    bridgeLater("telling/", "database/", "service/", "write-back/", "running/", "command-line/", "cli\\.ts"),
  ],
  [
    "bridge-telling-below-database",
    "telling",
    "telling/ (the event log, the status and metrics, progress) tells what any room reports: it knows none of their data",
    bridgeLater("database/", "service/", "write-back/", "running/", "command-line/", "cli\\.ts"),
  ],
  [
    "bridge-database-below-service",
    "database",
    "database/ reads BOINC's database and config.xml: it never talks to the service or writes credit",
    bridgeLater("service/", "write-back/", "running/", "command-line/", "cli\\.ts"),
  ],
  [
    "bridge-service-below-write-back",
    "service",
    "service/ turns rows into the API's calls and sends them: it never writes into BOINC's database",
    bridgeLater("write-back/", "running/", "command-line/", "cli\\.ts"),
  ],
  [
    "bridge-write-back-below-running",
    "write-back",
    "write-back/ writes what the service answered: when and in what order is running/'s, never its own",
    bridgeLater("running/", "command-line/", "cli\\.ts"),
  ],
  [
    "bridge-running-below-command-line",
    "running",
    "running/ is a run from its options, so a test or a benchmark runs it without a command line",
    bridgeLater("command-line/", "cli\\.ts"),
  ],
  [
    "bridge-command-line-below-cli",
    "command-line",
    "command-line/ parses the options; cli.ts, the entry, runs them",
    bridgeLater("cli\\.ts"),
  ],
];

module.exports = {
  forbidden: [
    {
      name: "credit-is-pure",
      comment: "credit/ is CreditNew's math, no I/O: it imports only credit/ (and no npm package but its own)",
      severity: "error",
      from: { path: "^src/credit/" },
      to: { pathNot: "^src/credit/" },
    },
    {
      name: "no-cycles",
      comment: "an import cycle makes two modules one; move what both need into a third",
      severity: "error",
      // The benchmarks and the bridge too (`npm run lint:layers` cruises bench/ and bridge/).
      from: { path: "^(src|bench|bridge)/" },
      to: { circular: true },
    },
    {
      name: "leaves-import-nothing",
      comment:
        "clock.ts, limits.ts (the request limits), config.ts (retention, purges, clock skew) and log.ts (the JSON log line) are leaves every layer uses, so they import nothing of src/",
      severity: "error",
      from: { path: "^src/(clock|limits|config|log)\\.ts$" },
      to: { path: "^src/" },
    },
    {
      name: "env-vars-knows-only-config",
      comment: "env-vars.ts is the variables' schema, which Node (scripts/dev.ts) imports too: it may use config.ts's defaults only",
      severity: "error",
      from: { path: "^src/env-vars\\.ts$" },
      to: { path: "^src/", pathNot: "^src/(config|env-vars)\\.ts$" },
    },
    {
      name: "env-knows-only-db",
      comment: "env.ts types the bindings and parses the variables; it may use db/ types and env-vars.ts only",
      severity: "error",
      from: { path: "^src/env\\.ts$" },
      to: { path: "^src/", pathNot: "^src/(db/|env\\.ts$|env-vars\\.ts$)" },
    },
    {
      name: "src-never-imports-tests",
      comment: "the Worker ships src/ alone",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|bridge)/" },
    },
    {
      name: "bridge-ships-alone",
      comment: "the package bundles bridge/cli.ts and what it imports: no test, benchmark or script (but the types writer, not shipped)",
      severity: "error",
      from: { path: "^bridge/", pathNot: "^bridge/service/write-api-types\\.ts$" },
      to: { path: "^(test|bench|scripts)/" },
    },
    {
      name: "bridge-uses-only-pure-src",
      comment:
        "the bridge runs in Node on a BOINC server: of the Worker it shares only the pure engine (credit/: no I/O, no Workers types)",
      severity: "error",
      from: { path: "^bridge/" },
      to: { path: "^src/", pathNot: "^src/credit/" },
    },
    {
      name: "bridge-generated-imports-nothing",
      comment: "service/generated/ is written by `npm run bridge:types` from the OpenAPI document alone",
      severity: "error",
      from: { path: "^bridge/service/generated/" },
      to: { pathNot: "^bridge/service/generated/" },
    },
    {
      name: "bridge-pack-apart",
      comment: "pack/ builds the package from bridge/cli.ts by path: nothing the bridge runs imports it",
      severity: "error",
      from: { path: "^bridge/", pathNot: "^bridge/pack/" },
      to: { path: "^bridge/pack/" },
    },
    {
      name: "bridge-pack-knows-only-shared",
      comment: "pack/ needs the version and the Node check (shared/), never the bridge's workings, which it bundles",
      severity: "error",
      from: { path: "^bridge/pack/" },
      to: { path: "^bridge/", pathNot: "^bridge/(pack|shared)/" },
    },
    ...LAYER_RULES.map(([name, from, comment, to]) => ({
      name,
      comment,
      severity: "error",
      from: { path: `^${from}(/|$)` },
      to: { path: to },
    })),
    ...BRIDGE_ROOM_RULES.map(([name, from, comment, to]) => ({
      name,
      comment,
      severity: "error",
      from: { path: `^bridge/${from}/` },
      to: { path: to },
    })),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: a cycle or an upward import of types is still a tie.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
