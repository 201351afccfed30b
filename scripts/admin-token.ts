/** Prints a new admin token (prefix cba_) for `wrangler secret put ADMIN_TOKEN`. */
import { newAdminToken } from "../src/http/tokens";

console.log(newAdminToken());
