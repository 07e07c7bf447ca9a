import type { FastifyRequest } from 'fastify';
import type { FormBody } from './form.ts';
import { PageError } from './page-error.ts';

// multipart/form-data, for the one dashboard form that uploads a file (the
// monitor import): text parts become ordinary form fields, so the CSRF check
// reads `_csrf` as from any form; file parts are kept aside as bytes. The body
// is whole in memory already, bounded by the route's body limit.

export interface UploadedFile {
  filename: string;
  content: Buffer;
}

const FILES = Symbol('uploaded files');

type MultipartBody = FormBody & { [FILES]?: Map<string, UploadedFile> };

const malformed = () => new PageError(400, 'Bad request', 'The uploaded form could not be read.');

/** The boundary of a multipart/form-data content type, or null. */
export function multipartBoundary(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match ? (match[1] ?? match[2]!) : null;
}

/** A disposition parameter's value: `name="…"`, quoted as browsers send it (a quote inside is %22). */
function parameter(disposition: string, name: string): string | null {
  const match = new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(disposition);
  return match ? match[1]! : null;
}

export function parseMultipart(body: Buffer, boundary: string): MultipartBody {
  const form = Object.create(null) as MultipartBody;
  const files = new Map<string, UploadedFile>();
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  if (at === -1) throw malformed();
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString('latin1') === '--') break;
    const headersEnd = body.indexOf('\r\n\r\n', at);
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), at);
    if (headersEnd === -1 || next === -1 || headersEnd > next) throw malformed();
    const headers = body.subarray(at, headersEnd).toString('utf8');
    const content = body.subarray(headersEnd + 4, next);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1];
    const name = disposition === undefined ? null : parameter(disposition, 'name');
    if (name === null) throw malformed();
    const filename = parameter(disposition!, 'filename');
    if (filename !== null) files.set(name, { filename, content: Buffer.from(content) });
    else {
      const value = content.toString('utf8');
      const existing = form[name];
      form[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    at = next + 2;
  }
  form[FILES] = files;
  return form;
}

/** The file uploaded in the field, or null when none was chosen (browsers send an empty part with no name). */
export function uploadedFile(request: FastifyRequest, name: string): UploadedFile | null {
  const file = (request.body as MultipartBody | null)?.[FILES]?.get(name);
  return file && (file.filename !== '' || file.content.length > 0) ? file : null;
}
