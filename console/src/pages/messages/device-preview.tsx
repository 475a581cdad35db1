import type { Message } from './message-queries.ts';

interface Face {
  title: string | null;
  subtitle: string | null;
  text: string | null;
}

/** One notification as a phone shows it: title, subtitle, text and the action button. */
function Notification({ label, face, action, rich }: { label: string; face: Face; action: string; rich: boolean }) {
  return (
    <figure className="device">
      <figcaption>{label}</figcaption>
      <div className="device-screen">
        <div className="notification">
          <p className="notification-app">{rich ? 'Rich push · plays a recording' : 'Push'}</p>
          <p className="notification-title">{face.title || '(no title)'}</p>
          {face.subtitle && <p className="notification-subtitle">{face.subtitle}</p>}
          {face.text && <p className="notification-text">{face.text}</p>}
          <span className="notification-action">{action}</span>
        </div>
      </div>
    </figure>
  );
}

/** The message as a device shows it, and its fallback text (fbTitle, fbSubtitle, fbText) for one that cannot play it. */
export function DevicePreview({ message }: { message: Message }) {
  const rich = message.type === 'RICHPUSH';
  const fallback: Face = { title: message.fbTitle, subtitle: message.fbSubtitle, text: message.fbText };
  const hasFallback = Boolean(fallback.title || fallback.subtitle || fallback.text);
  return (
    <div className="devices">
      <Notification label="On a device" face={message} action={message.action} rich={rich} />
      {hasFallback && <Notification label="Fallback, where it cannot play" face={fallback} action={message.action} rich={false} />}
      {!hasFallback && <p className="hint">No fallback text.</p>}
    </div>
  );
}
