import { ApiError } from '../api/client.ts';

/** A failed call as a person can act on it: the API's message and code, and its request id for a report. */
export function ErrorMessage({ error }: { error: Error }) {
  const api = error instanceof ApiError ? error : undefined;
  return (
    <div role="alert" className="error">
      <p>{error.message}</p>
      {api && (
        <p className="error-detail">
          {api.status} <code>{api.code}</code>
          {api.requestId && <> · request {api.requestId}</>}
        </p>
      )}
    </div>
  );
}
