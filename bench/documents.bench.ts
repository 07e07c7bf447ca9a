import { performance } from 'node:perf_hooks';
import { query } from 'jsonpath-rfc9535';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { request } from 'undici';
import type { Target } from '../src/domain/targets.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import { makePdf } from '../test/helpers/pdf-documents.ts';
import { startTestApp } from '../test/helpers/test-app.ts';
import { fmt, publish, ratio, table } from './lib/report.ts';

// Issue #40: documents other than HTML. (1) JSON checks: pagewatch's html
// loader (SSRF guard, limits) and the extraction threads reading a JSONPath
// price, against undici fetch + JSON.parse + the same JSONPath query in this
// process. (2) PDF text: a PDF read by pagewatch's extraction threads against
// PDF.js alone (getDocument + getTextContent of every page) in this process.
// Alternating rounds, the median round's ratio.
//
//   BENCH_DOC_CHECKS   JSON checks per round (default 400)
//   BENCH_DOC_PDFS     PDF reads per round (default 40)
//   BENCH_DOC_ROUNDS   rounds (default 3)

const CHECKS = Number(process.env.BENCH_DOC_CHECKS ?? 400);
const PDFS = Number(process.env.BENCH_DOC_PDFS ?? 40);
const ROUNDS = Number(process.env.BENCH_DOC_ROUNDS ?? 3);
const CONCURRENCY = 8;

const offers = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `Offer ${i}`, price: 10 + i / 100, in_stock: i % 3 !== 0 }));
const JSON_BODY = JSON.stringify({ product: { name: 'Kettle', offers } });
const PATH = '$.product.offers[17].price';
const PDF_BODY = makePdf(
  Array.from({ length: 10 }, (_, p) => ({
    lines: [
      { text: `Price list page ${p + 1}`, size: 18 },
      ...Array.from({ length: 40 }, (_, i) => ({ text: `Item ${p * 40 + i} ${(i + 1) * 1.25} EUR` })),
    ],
  })),
);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function inParallel(count: number, one: () => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await one();
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

const t = await startTestApp();
const site = await startFixtureServer({
  '/api.json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON_BODY);
  },
});
try {
  const url = `${site.url}/api.json`;
  const target: Target = { id: 'p', kind: 'price', selection: { scope: 'json', path: PATH }, currency: 'EUR' };
  const ticket = { account: 'bench', lane: 'check' } as const;
  const pagewatchCheck = async () => {
    const load = await t.loaders.byMode.html.load({ url, mode: 'html' });
    const [read] = await t.loaders.extraction.targets(load.html!, load.finalUrl, [target], ticket);
    if (read?.value !== 1017) throw new Error(`unexpected ${JSON.stringify(read)}`);
  };
  const baselineCheck = async () => {
    const response = await request(url);
    const [price] = query(JSON.parse(await response.body.text()), PATH);
    if (price !== 10.17) throw new Error(`unexpected ${JSON.stringify(price)}`);
  };
  const pagewatchPdf = async () => {
    const [read] = await t.loaders.extraction.targets(
      { bytes: PDF_BODY, charset: null, format: 'pdf' },
      url,
      [{ id: 't', kind: 'text', selection: { scope: 'page' } }],
      ticket,
    );
    if (!read?.ok) throw new Error(`unexpected ${JSON.stringify(read?.issues)}`);
  };
  const baselinePdf = async () => {
    const pdf = await getDocument({ data: new Uint8Array(PDF_BODY), isEvalSupported: false, verbosity: 0 }).promise;
    for (let n = 1; n <= pdf.numPages; n++) await (await pdf.getPage(n)).getTextContent();
    await pdf.destroy();
  };
  await pagewatchCheck();
  await pagewatchPdf();
  const rounds: { json: [number, number]; pdf: [number, number] }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const jsonBase = await inParallel(CHECKS, baselineCheck);
    const jsonOurs = await inParallel(CHECKS, pagewatchCheck);
    const pdfBase = await inParallel(PDFS, baselinePdf);
    const pdfOurs = await inParallel(PDFS, pagewatchPdf);
    rounds.push({ json: [jsonBase, jsonOurs], pdf: [pdfBase, pdfOurs] });
  }
  const byRatio = (pick: (r: (typeof rounds)[number]) => [number, number]) => {
    const ratios = rounds.map((r) => pick(r)[1] / pick(r)[0]);
    return rounds[ratios.indexOf(median(ratios))]!;
  };
  const json = byRatio((r) => r.json).json;
  const pdf = byRatio((r) => r.pdf).pdf;
  publish(
    'documents',
    `## Documents: JSON checks and PDF text (#40)

JSON: a ${fmt(JSON_BODY.length / 1000, 0)} KB JSON API served on loopback, a price target by JSONPath (\`${PATH}\`), ${CHECKS} checks per
round, ${CONCURRENCY} at once; pagewatch's html loader and extraction threads (no store) against undici fetch + JSON.parse +
the same query in the benchmark process. PDF: a ${fmt(PDF_BODY.length / 1000, 0)} KB PDF of 10 pages, 410 lines, read ${PDFS} times per
round, ${CONCURRENCY} at once, as a whole-document text target in the extraction threads against PDF.js alone in the benchmark
process. ${ROUNDS} alternating rounds, the median round's ratio.

${table(
  ['what', 'per second', 'ratio to baseline'],
  [
    ['undici fetch + JSON.parse + JSONPath (baseline)', fmt(json[0]), '1.00×'],
    ['pagewatch JSON check (loader + extraction threads)', fmt(json[1]), ratio(json[1], json[0])],
    ['PDF.js getDocument + getTextContent alone (baseline)', fmt(pdf[0]), '1.00×'],
    ['pagewatch PDF text target (extraction threads)', fmt(pdf[1]), ratio(pdf[1], pdf[0])],
  ],
)}
`,
  );
} finally {
  await t.close();
  await site.close();
}
