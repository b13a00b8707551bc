// A minimal PDF writer for the text extraction suites, so they need no binary fixtures.

const HEADER = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';

// RC4-40 (V1 R2) with owner and user hashes that match no password, the empty one included.
const ENCRYPTION = ` /Encrypt << /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -44 >> /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`;

/** Escapes a line as a PDF literal string: `( ) \` get a backslash, bytes past ASCII an octal escape. */
function literal(line: string): string {
  let out = '';
  for (const char of line) {
    const code = char.codePointAt(0)!;
    if (code > 0xff) throw new Error(`makePdf: ${JSON.stringify(char)} is outside Latin-1 (WinAnsiEncoding)`);
    if (char === '(' || char === ')' || char === '\\') out += `\\${char}`;
    else if (code < 0x20 || code > 0x7e) out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += char;
  }
  return `(${out})`;
}

function contentStream(lines: string[]): string {
  const shown = lines.map((line, index) => `${index === 0 ? '' : 'T* '}${literal(line)} Tj`).join('\n');
  return `BT\n/F1 12 Tf\n14 TL\n72 720 Td\n${shown}\nET`;
}

/**
 * A complete, valid PDF with one page per entry of `pages`, each line of a page shown one under the
 * other in Helvetica (WinAnsiEncoding, so Latin-1 accents survive), with a correct xref table.
 * `encrypted` adds a standard security handler whose user password is not empty (and not known).
 */
export function makePdf(pages: string[][], options: { encrypted?: boolean } = {}): Buffer {
  const objects: string[] = [];
  const pageIds = pages.map((_, index) => 4 + index * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((lines, index) => {
    const pageId = pageIds[index]!;
    const stream = contentStream(lines);
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });

  // Every character is one latin1 byte, so string lengths are byte offsets.
  const parts = [HEADER];
  let length = HEADER.length;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = length;
    const object = `${id} 0 obj\n${objects[id]}\nendobj\n`;
    parts.push(object);
    length += object.length;
  }
  const entries = offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`);
  parts.push(`xref\n0 ${objects.length}\n0000000000 65535 f \n${entries.join('')}`);
  parts.push(
    `trailer\n<< /Size ${objects.length} /Root 1 0 R${options.encrypted ? ENCRYPTION : ''} >>\nstartxref\n${length}\n%%EOF\n`,
  );
  return Buffer.from(parts.join(''), 'latin1');
}
