/**
 * A host_app_version is keyed by host and app version; an anonymous-platform one (negative
 * app_version_id, one per resource) also by its app, since it has no app_version row.
 */
export interface HostAppVersionKey {
  readonly hostId: number;
  readonly appId: number;
  readonly appVersionId: number;
}

export function havKey(k: HostAppVersionKey): string {
  return `${k.hostId}/${k.appId}/${k.appVersionId}`;
}

export function isAnonymousPlatform(appVersionId: number): boolean {
  return appVersionId < 0;
}
