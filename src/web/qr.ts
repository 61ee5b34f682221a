/**
 * `text` as a QR code in an SVG document, black on white with the standard
 * quiet zone: the image the dashboard shows for each table.
 *
 * @example
 * await qrSvg('http://127.0.0.1:4747/t/gt_…') // '<svg xmlns="http://www.w3.org/2000/svg" …'
 */
export async function qrSvg(text: string): Promise<string> {
  const {default: qrcode} = await import('qrcode')
  return qrcode.toString(text, {type: 'svg', margin: 4})
}
