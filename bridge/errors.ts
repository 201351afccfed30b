/** A failure the bridge explains to the admin in one message (exit status 2), never with a stack. */
export class BridgeError extends Error {
  override name = "BridgeError";
}
