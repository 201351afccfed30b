/**
 * Whose credit it is when a valid result already has credit that the bridge did not write
 * (docs/bridge.md, "Before or after the switch"). Pure.
 *
 * Its `mod_time` cannot tell: BOINC's transitioner and file deleter rewrite result rows after
 * validation, so a result BOINC validated and credited just before the switch can carry a
 * `mod_time` after it. `received_time` is stamped once, by the scheduler when the client
 * reports the result, and no daemon writes it again; a result is validated after it is
 * reported. So a result reported from the switch on cannot have been validated before it: if it
 * has credit the bridge did not write, a validator still grants. A result reported before the
 * switch may have been validated on either side: its credit stands, whoever granted it (the
 * bridge only ever writes a result whose granted_credit is 0, so it is credited once either way),
 * and a validator that still grants is caught on the first result reported after the switch.
 */
export function grantedBeforeSwitch(result: { received_time: number }, switchTime: number): boolean {
  return result.received_time < switchTime;
}
