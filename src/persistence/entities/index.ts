import { Account } from './account.ts';
import { App } from './app.ts';
import { Notification } from './notification.ts';

export { Account, App, Notification };
export const entities = [Account, App, Notification];
