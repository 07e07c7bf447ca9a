import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHtmlLoaderFixture } from '../../helpers/html-loader-fixture.ts';
import { pageText } from '../../../src/domain/page-source.ts';

// Pages in legacy encodings come out as correct text.

const { load } = useHtmlLoaderFixture();

async function text(path: string): Promise<string> {
  const result = await load(path);
  assert.deepEqual(result.issues, [], path);
  return /<p id="v">(.*?)<\/p>/.exec(pageText(result.html ?? ''))?.[1] ?? '';
}

test('windows-1252 declared in the Content-Type header is decoded', async () => {
  assert.equal(await text('/loader/cp1252-header'), 'Café € 5 ‘quoted’');
});

test('windows-1252 declared in a meta http-equiv is decoded', async () => {
  assert.equal(await text('/loader/cp1252-meta'), 'Café € 5 ‘quoted’');
});

test('shift_jis declared in meta charset is decoded', async () => {
  assert.equal(await text('/loader/sjis-meta'), '日本語の価格');
});

test('undeclared bytes that are not UTF-8 are read as windows-1252', async () => {
  assert.equal(await text('/loader/undeclared-cp1252'), 'Café € 5 ‘quoted’');
});

test('the Content-Type charset wins over a contradicting meta', async () => {
  assert.equal(await text('/loader/header-beats-meta'), 'Café € 5 ‘quoted’');
});
