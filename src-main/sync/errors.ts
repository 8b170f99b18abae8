// A push, pull or resolution that cannot go on: the message says why in the user's terms.
// `status` is the HTTP status the console API answers with it; `uncertain` marks a failure to
// get any answer, after which a change sent may or may not have reached the origin.
export class SyncError extends Error {
  constructor(
    message: string,
    readonly kind: 1 | 2 | 3 = 1,
    readonly status: number = kind === 2 ? 400 : kind === 3 ? 409 : 502,
    readonly uncertain = false,
  ) {
    super(message);
  }
}
