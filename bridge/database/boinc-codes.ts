/** BOINC's numeric codes for the columns the bridge reads (BOINC's common_defs.h / boinc_db_types.h). */

/** result.validate_state */
export const VALIDATE_STATE = { init: 0, valid: 1, invalid: 2, noCheck: 3, inconclusive: 4, tooLate: 5 } as const;

/** result.outcome */
export const OUTCOME = {
  init: 0,
  success: 1,
  couldntSend: 2,
  clientError: 3,
  noReply: 4,
  didntNeed: 5,
  validateError: 6,
  clientDetached: 7,
} as const;

/** result.exit_status of a job the project cancelled (ERR_ABORTED_BY_PROJECT). */
export const EXIT_ABORTED_BY_PROJECT = -221;
