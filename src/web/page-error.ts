// An error the dashboard shows as a page of its own, with this status.
export class PageError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(status: number, title: string, message: string) {
    super(message);
    this.name = 'PageError';
    this.status = status;
    this.title = title;
  }
}
