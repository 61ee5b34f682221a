/** Whether `bytes` hold `marker` at `at`: byte by byte, which costs less than a Buffer method's call for a few bytes. */
export function holds(bytes: Buffer, marker: Buffer, at: number): boolean {
  if (at < 0 || at + marker.length > bytes.length) return false
  for (let i = 0; i < marker.length; i++) if (bytes[at + i] !== marker[i]) return false
  return true
}
