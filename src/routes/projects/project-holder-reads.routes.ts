import { projectSettingRoutes } from "./project-setting.routes";
import { HolderReadsSchema, SetHolderReadsSchema } from "./project-holder-reads.schemas";

export const { getRoute, changeRoute: putRoute } = projectSettingRoutes({
  path: "/v1/projects/{slug}/holder-reads",
  answer: { schema: HolderReadsSchema, description: "Where the project's holders are read from" },
  read: { tag: "Admin", summary: "Where public reads of the project's hosts, users and teams come from" },
  change: {
    method: "put",
    body: SetHolderReadsSchema,
    summary: "Operator: read the project's holders from KV snapshots or live from D1",
    description:
      "Takes effect within a minute (each isolate looks the setting up again after a minute). Turning snapshots back on serves no KV snapshot taken before that moment: a holder is read from D1 until the cron has written it again. Setting the current value changes nothing.",
  },
});
