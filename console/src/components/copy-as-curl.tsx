import { useId, useState } from 'react';

export interface CurlRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path as the API documents it, with any query already on it. */
  path: string;
  body?: unknown;
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The same request as a curl command, for scripts: `$API` is the service's address and `$KEY` an API key (the
 * console never has the key, and a command line should not carry the session's cookie).
 */
export function curlCommand({ method, path, body }: CurlRequest): string {
  const lines = [`curl -s${method === 'GET' ? '' : ` -X ${method}`} "$API${path}"`, '-H "Authorization: Bearer $KEY"'];
  if (body !== undefined) lines.push("-H 'Content-Type: application/json'", `-d ${quote(JSON.stringify(body))}`);
  return lines.join(' \\\n  ');
}

/**
 * "Copy as curl" for a form or a view: every action the console takes is a public API call, and this shows which.
 * The command is shown as text too, so it can be read and selected without the clipboard.
 */
export function CopyAsCurl({ request }: { request: CurlRequest }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const commandId = useId();
  const command = curlCommand(request);
  const copy = () => {
    navigator.clipboard.writeText(command).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    );
  };
  return (
    <details className="curl">
      <summary>Copy as curl</summary>
      <pre id={commandId}>
        <code>{command}</code>
      </pre>
      <button type="button" onClick={copy} aria-describedby={commandId}>
        Copy command
      </button>
      <span role="status" className="hint">
        {copied === 'copied' ? 'Copied.' : copied === 'failed' ? 'The clipboard is not available here: select the command instead.' : ''}
      </span>
    </details>
  );
}
