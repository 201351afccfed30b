/**
 * The last link of the run's chain: the state file saved once a request is answered and written
 * (request-pipeline.ts orders it), and the trickle messages' cursor saved with it. A dry run saves
 * nothing. A write-back run writes every answered request before it saves, so its writing
 * reached the cursor: the state says so (write_back_cursor), for a later run without --write-back.
 */
import { type BridgeState, saveState } from "./state";

export class Checkpoint {
  constructor(
    private readonly stateFile: string,
    private readonly dryRun: boolean,
    private readonly writeBack: boolean,
    private readonly write: (file: string, state: BridgeState) => Promise<void> = saveState,
  ) {}

  readonly save = async (state: BridgeState): Promise<void> => {
    if (this.dryRun) return;
    await this.write(this.stateFile, this.writeBack ? { ...state, write_back_cursor: { ...state.cursor } } : state);
  };

  /**
   * The trickle messages' cursor, saved after every write and save of passes (the trickles' round
   * runs after them): in the state as saved and as it runs ahead, so the next save keeps it.
   */
  saveTrickleCursor(pipeline: { saved: BridgeState; next: BridgeState }, id: number): Promise<void> {
    pipeline.saved.trickle_cursor = id;
    pipeline.next.trickle_cursor = id;
    return this.save(pipeline.saved);
  }
}
