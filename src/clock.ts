/** The server's clock in Unix seconds: every layer above credit/ reads time here. */
export function serverNow(): number {
  return Date.now() / 1000;
}
