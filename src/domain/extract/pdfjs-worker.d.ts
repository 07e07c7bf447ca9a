// PDF.js ships no types for its worker module; pdf-text.ts hands it to PDF.js as its in-thread worker.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
