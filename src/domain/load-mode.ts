/** How a page is loaded: plain HTTP (undici) or rendered in Chromium. */
export type LoadMode = 'html' | 'browser';
