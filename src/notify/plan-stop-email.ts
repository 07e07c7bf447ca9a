import type { StoppedMonitor } from '../domain/plan-fit.ts';
import type { AccountNotice } from '../store/deliveries-store.ts';
import { escapeHtml, oneLine, type ChangeEmail } from './email-message.ts';
import { monitorLink } from './monitor-event.ts';

// The owner's one email after the operator moved the account to a plan under
// which some of its monitors are no longer checked: which ones, why, and what
// brings their checks back.

export function composeMonitorsStoppedEmail(notice: AccountNotice, publicUrl: string): ChangeEmail {
  const plan = String(notice.eventData.plan);
  const stopped = (notice.eventData.monitors as StoppedMonitor[] | undefined) ?? [];
  const count = stopped.length === 1 ? '1 monitor is' : `${stopped.length} monitors are`;
  const intro = `Your account was moved to the ${plan} plan, under which ${count} no longer checked.`;
  const advice =
    "Each line says what brings the monitor's checks back: a load mode the plan has checks of, " +
    'or a plan that includes it, which the operator of this pagewatch server can give the account.';
  const nameOf = (m: StoppedMonitor) => (m.name ? `${oneLine(m.name)} (${m.url})` : m.url);
  const text = [
    intro,
    '',
    ...stopped.flatMap((m) => [`- ${nameOf(m)}`, `  ${m.reason}`, `  ${monitorLink(publicUrl, m.id)}`]),
    '',
    advice,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>${escapeHtml(intro)}</p>`,
    '<ul>',
    ...stopped.map(
      (m) => `<li><a href="${escapeHtml(monitorLink(publicUrl, m.id))}">${escapeHtml(nameOf(m))}</a><br>${escapeHtml(m.reason)}</li>`,
    ),
    '</ul>',
    `<p>${escapeHtml(advice)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: `[pagewatch] ${count} no longer checked on the ${plan} plan`, text, html };
}
