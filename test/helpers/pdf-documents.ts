import { deflateSync } from 'node:zlib';

// Small real PDF files made in the tests: pages of text lines in Helvetica
// (a size per line, so headings can be told from body text), tables (cells
// drawn row by row between ruled lines), link annotations, a page with no
// text (as a scan is), an encrypted one, and a compression bomb. Written by hand after ISO 32000-1 §7 (objects, xref table,
// trailer), so no PDF library's output is tested against itself.

export interface PdfLine {
  text: string;
  /** font size in points; default 11 */
  size?: number;
}

export interface PdfPage {
  lines?: PdfLine[];
  /** a table below the lines: rows of cells, drawn cell by cell in columns 160 pt apart, with a rule under each row */
  table?: string[][];
  /** URI link annotations on the page */
  links?: string[];
  /** raw content stream instead of the lines (a drawing, a bomb); Flate-compressed when `deflate` */
  content?: Buffer;
  deflate?: boolean;
}

function escapePdfText(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

function linesStream(lines: readonly PdfLine[], table: readonly string[][]): Buffer {
  let y = 800;
  const ops = lines.map(({ text, size = 11 }) => {
    y -= size * 1.6;
    return `BT /F1 ${size} Tf 50 ${y.toFixed(0)} Td (${escapePdfText(text)}) Tj ET`;
  });
  for (const row of table) {
    y -= 20;
    row.forEach((cell, column) => ops.push(`BT /F1 11 Tf ${50 + column * 160} ${y} Td (${escapePdfText(cell)}) Tj ET`));
    ops.push(`0.5 w 45 ${y - 5} m ${55 + row.length * 160} ${y - 5} l S`);
  }
  return Buffer.from(ops.join('\n'), 'latin1');
}

/** A PDF of the pages; `encrypted`: a standard security handler whose user password is not empty, so no reader opens it without one. */
export function makePdf(pages: PdfPage[], options: { encrypted?: boolean } = {}): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string): number => objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'));
  const catalog = add('');
  const pagesRef = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const page of pages) {
    const raw = page.content ?? linesStream(page.lines ?? [], page.table ?? []);
    const data = page.deflate ? deflateSync(raw) : raw;
    const stream = add(
      Buffer.concat([
        Buffer.from(`<< /Length ${data.length}${page.deflate ? ' /Filter /FlateDecode' : ''} >>\nstream\n`, 'latin1'),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
    const annots = (page.links ?? []).map((uri, i) =>
      add(
        `<< /Type /Annot /Subtype /Link /Rect [50 ${100 + i * 20} 300 ${115 + i * 20}] /Border [0 0 0] /A << /S /URI /URI (${escapePdfText(uri)}) >> >>`,
      ),
    );
    const annotsEntry = annots.length ? ` /Annots [${annots.map((n) => `${n} 0 R`).join(' ')}]` : '';
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesRef} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R${annotsEntry} >>`,
      ),
    );
  }
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pagesRef} 0 R >>`, 'latin1');
  objects[pagesRef - 1] = Buffer.from(
    `<< /Type /Pages /Kids [${kids.map((n) => `${n} 0 R`).join(' ')}] /Count ${kids.length} >>`,
    'latin1',
  );
  const encrypt = options.encrypted
    ? add(`<< /Filter /Standard /V 1 /R 2 /O <${'6f'.repeat(32)}> /U <${'75'.repeat(32)}> /P -44 >>`)
    : null;

  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(object);
    length += object.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  const id = `<${'ab'.repeat(16)}>`;
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${encrypt ? ` /Encrypt ${encrypt} 0 R` : ''} /ID [${id} ${id}] >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(xref + trailer, 'latin1'));
  return Buffer.concat(parts);
}

/** A page whose compressed content is a few hundred KB and expands to `megabytes` MB of text-drawing operators. */
export function pdfBomb(megabytes: number): Buffer {
  const unit = Buffer.from('BT /F1 11 Tf 50 700 Td (bomb bomb bomb bomb) Tj ET\n', 'latin1');
  const content = Buffer.alloc(megabytes * 1024 * 1024);
  for (let at = 0; at < content.length; at += unit.length) unit.copy(content, at);
  return makePdf([{ content, deflate: true }]);
}
