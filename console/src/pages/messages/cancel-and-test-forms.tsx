import { useId, useState, type FormEvent } from 'react';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { isSendCancellable, useCancelSend, useTestSend, type Message } from './message-queries.ts';

/** Cancels the send (POST /notification/cancel): pushes still waiting are counted `cancelled`. Asks to be sure first. */
export function CancelForm({ message }: { message: Message }) {
  const cancel = useCancelSend(message);
  const sureId = useId();
  const cancellable = isSendCancellable(message.send.state);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    cancel.mutate(undefined);
  };
  return (
    <form className="form" onSubmit={submit} aria-label="Cancel the send">
      {!cancellable && <p className="hint">Nothing to cancel: the send is {message.send.state.toLowerCase().replaceAll('_', ' ')}.</p>}
      {cancellable && (
        <>
          {/* Required: the browser will not submit until it is ticked, and says so. */}
          <span className="checkbox">
            <input id={sureId} type="checkbox" required />
            <label htmlFor={sureId}>Yes, stop the pushes still waiting</label>
          </span>
          <div className="form-actions">
            <button type="submit" className="danger" disabled={cancel.isPending}>
              Cancel the send
            </button>
          </div>
        </>
      )}
      {cancel.isSuccess && <p role="status">Cancelled.</p>}
      {cancel.error && <ErrorMessage error={cancel.error} />}
      <CopyAsCurl request={{ method: 'POST', path: `/notification/cancel?id=${message.id}&appId=${message.appId}` }} />
    </form>
  );
}

/** Device ids as typed: separated by commas, spaces or new lines. */
export const deviceIdsOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** Sends the message now to up to 20 devices (POST /notification/test), outside the campaign's counts. */
export function TestSendForm({ message }: { message: Message }) {
  const testSend = useTestSend(message);
  const devicesId = useId();
  const [devices, setDevices] = useState('');
  const deviceIds = deviceIdsOf(devices);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    testSend.mutate(deviceIds);
  };
  return (
    <form className="form" onSubmit={submit} aria-label="Test send">
      <label htmlFor={devicesId}>Device ids (1 to 20, separated by commas or spaces)</label>
      <textarea id={devicesId} rows={2} required value={devices} onChange={(event) => setDevices(event.target.value)} />
      <div className="form-actions">
        <button type="submit" disabled={testSend.isPending}>
          Send a test
        </button>
        {testSend.isSuccess && (
          <span role="status">
            Test {testSend.data.testId}: {testSend.data.sends.length} {testSend.data.sends.length === 1 ? 'push' : 'pushes'} on the way.
          </span>
        )}
      </div>
      {testSend.error && <ErrorMessage error={testSend.error} />}
      <CopyAsCurl request={{ method: 'POST', path: `/notification/test?id=${message.id}&appId=${message.appId}`, body: { deviceIds } }} />
    </form>
  );
}
