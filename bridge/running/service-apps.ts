/**
 * The apps as the run knows them once the service has them: the database's apps and versions
 * registered, each app's credit mode set on the service as config.xml's validators, the trickle
 * app and --credit-mode state it (a dry run registers nothing: the stated mode first), and the
 * most each app's results may be granted (credit-bounds.ts), read again when --follow reconnects.
 */
import type { CobblestoneApi } from "../service/api-client";
import type { AppRow, BoincDb } from "../database/boinc-db";
import { type CreditMode, NO_STATED_MODES, statedModes } from "../database/credit-modes";
import { BOINC_DEFAULT_CAPS, CreditCeilings, type ValidatorCaps } from "../write-back/credit-bounds";
import type { KnownVersions } from "../service/second-calls";
import { registerApps } from "../service/register-apps";
import { registerModes, tellModes } from "../service/register-modes";
import type { BridgeOptions } from "./run-options";
import type { Teller } from "../telling/event-log";
import { withTrickleApp } from "../database/trickle-config";

type ServiceApp = Awaited<ReturnType<CobblestoneApi["apps"]>>[number];

/** The ceilings of the service's apps as it last listed them (the database's apps give their ids). */
export class AppCeilings {
  private current: CreditCeilings | null = null;
  private databaseApps: readonly { id: number; name: string }[] = [];

  constructor(private readonly caps: ValidatorCaps = BOINC_DEFAULT_CAPS) {}

  /** `serviceApps` as the service lists them: a runtime app's credit_mode lowers its ceiling per workunit. */
  set(serviceApps: readonly { name: string; max_granted_credit: number; credit_mode?: string }[], databaseApps = this.databaseApps): void {
    this.databaseApps = databaseApps;
    this.current = new CreditCeilings(this.caps, serviceApps, databaseApps);
  }

  /** Set once the service's apps are read; every answer comes after. */
  get now(): CreditCeilings {
    if (!this.current) throw new Error("the apps' ceilings are not read yet");
    return this.current;
  }

  /** The write-back's bound by BOINC's app id (none before the service's apps are read). */
  ofAppId(appId: number): number {
    return this.current?.ofAppId(appId) ?? Infinity;
  }
}

export interface ServiceApps {
  databaseApps: AppRow[];
  knownVersions: KnownVersions;
  /** Each app's credit mode: the service's, as registered. */
  modes: Map<string, CreditMode>;
  /** The service's apps as registered (none in a dry run). */
  serviceApps: ServiceApp[];
}

/**
 * Registers the apps, versions and modes, and sets `ceilings`. `writeBack.opened` is the
 * write-back's opening, made meanwhile: after a refusal here it must be open (or failed) before
 * the run closes it, and the refusal is what is told.
 */
export async function registerServiceApps(
  boinc: BoincDb,
  api: CobblestoneApi,
  options: BridgeOptions,
  ceilings: AppCeilings,
  writeBack: { on: boolean; opened: Promise<void> },
  teller: Teller,
): Promise<ServiceApps> {
  const databaseApps = await boinc.apps();
  const stated = statedModes(
    withTrickleApp(options.creditModes ?? NO_STATED_MODES, options.trickles ?? null, databaseApps),
    databaseApps.map((a) => a.name),
  );
  try {
    const dryRunLine = (line: string) => teller.tell("info", "dry_run", line);
    const knownVersions = await registerApps(boinc, databaseApps, api, options.dryRun, dryRunLine);
    const service = await registerModes(api, options.project, stated, options.dryRun, dryRunLine);
    const serviceApps = options.dryRun ? [] : service.apps;
    ceilings.set(serviceApps, databaseApps);
    tellModes(databaseApps, stated, service.modes, writeBack.on, teller.emit);
    await writeBack.opened;
    return { databaseApps, knownVersions, modes: service.modes, serviceApps };
  } catch (e) {
    await writeBack.opened.catch(() => undefined);
    throw e;
  }
}
