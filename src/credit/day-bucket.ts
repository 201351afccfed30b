/** One stored history bucket: the credit granted in its day (or month) and the RAC pair after its last grant. */
export interface DayBucket {
  /** Days since 1970-01-01 UTC; a monthly bucket is dated at its month's first day. */
  readonly day: number;
  readonly credit: number;
  readonly expavgCredit: number;
  readonly expavgTime: number;
}
