/** Passes waiting to go to the service together (POST /pass-batches), within the API's bounds. */
import { MAX_RESULTS_PER_PASS, type PassBody, type SecondCalls } from "./second-calls";

/** The API's bounds on one batch (MAX_PASSES_PER_BATCH; all its passes' workunits and results: MAX_WORKUNITS_PER_PASS, MAX_RESULTS_PER_PASS). */
export const MAX_PASSES_PER_BATCH = 50;
export const MAX_WORKUNITS_PER_BATCH = 1000;

type Granted = SecondCalls["boincGranted"];

const resultsOf = (pass: PassBody) => pass.workunits.reduce((n, w) => n + w.results.length, 0);

export class PassBatch {
  /** `maxPasses`: fewer than the API allows only to measure what batching gains (bench:bridge). */
  constructor(private readonly maxPasses = MAX_PASSES_PER_BATCH) {}

  private passes: PassBody[] = [];
  private workunits = 0;
  private results = 0;
  private granted: Granted = new Map();

  get empty(): boolean {
    return this.passes.length === 0;
  }

  /** Whether `pass` can join the passes waiting (an empty batch takes any pass). */
  fits(pass: PassBody): boolean {
    return (
      this.empty ||
      (this.passes.length < this.maxPasses &&
        this.workunits + pass.workunits.length <= MAX_WORKUNITS_PER_BATCH &&
        this.results + resultsOf(pass) <= MAX_RESULTS_PER_PASS)
    );
  }

  add(pass: PassBody, granted: Granted): void {
    this.passes.push(pass);
    this.workunits += pass.workunits.length;
    this.results += resultsOf(pass);
    for (const w of pass.workunits) for (const r of w.results) this.granted.set(r.id, granted.get(r.id)!);
  }

  /** The passes waiting, in order, and BOINC's credit of their results (for --compare); empties the batch. */
  take(): { passes: PassBody[]; boincGranted: Granted } {
    const out = { passes: this.passes, boincGranted: this.granted };
    this.passes = [];
    this.workunits = 0;
    this.results = 0;
    this.granted = new Map();
    return out;
  }
}
