import { existsSync, readFileSync } from 'node:fs';

// The shared SSRF corpus: one `URL<TAB>[category] note` per line; split on
// the first tab only (a URL may itself contain odd characters).

// shared/ sits beside the repository (as on the developers' machines and in CI).
export const SSRF_CORPUS_PATH = new URL('../../../shared/corpora/ssrf-urls.txt', import.meta.url).pathname;

/** Why the corpus tests cannot run here, or null when the corpus is beside the repository. */
export function ssrfCorpusMissing(): string | null {
  return existsSync(SSRF_CORPUS_PATH) ? null : `the SSRF corpus is not at ${SSRF_CORPUS_PATH} (shared/ beside the repository)`;
}

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
