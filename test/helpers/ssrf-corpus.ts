import { readFileSync } from 'node:fs';

// The SSRF corpus (test/corpora/ssrf-urls.txt, see ssrf.SOURCE.md there): one
// `URL<TAB>[category] note` per line; split on the first tab only (a URL may
// itself contain odd characters).

export const SSRF_CORPUS_PATH = new URL('../corpora/ssrf-urls.txt', import.meta.url).pathname;

export interface CorpusCase {
  url: string;
  note: string;
}

export function readSsrfCorpus(path = SSRF_CORPUS_PATH): CorpusCase[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      return tab === -1 ? { url: line, note: '' } : { url: line.slice(0, tab), note: line.slice(tab + 1) };
    });
}
