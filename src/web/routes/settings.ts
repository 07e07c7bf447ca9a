import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { isTimeZone } from '../../domain/time-zones.ts';
import { isEmailMode } from '../../domain/digest-periods.ts';
import { changeAccount, getAccount } from '../../services/accounts.ts';
import { field } from '../form.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { settingsBody } from '../views/settings.ts';

// Settings: what the owner may change about the account itself, through the
// same account service as the operator API.

export const settingsRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  async function render(request: FastifyRequest, reply: FastifyReply, extra: { error?: string; status?: number } = {}) {
    const account = await getAccount(deps, request.owner!.accountId);
    const ctx = pageContext(request);
    const body = settingsBody(ctx, {
      timeZone: account.time_zone,
      now: deps.clock.now(),
      emailMode: account.email_mode,
      digestHour: account.digest_hour,
    });
    return sendPage(reply, layout(ctx, 'Settings', body, { error: extra.error }), extra.status);
  }

  app.get('/settings', async (request, reply) => render(request, reply));

  app.post('/settings/time-zone', async (request, reply) => {
    const timeZone = field(request, 'time_zone');
    if (!isTimeZone(timeZone)) {
      return render(request, reply, { error: 'Choose a time zone from the list, such as Europe/Berlin or UTC.', status: 422 });
    }
    await changeAccount(deps, request.owner!.accountId, { time_zone: timeZone });
    return seeOther(reply, '/settings?notice=time-zone-saved');
  });

  app.post('/settings/email', async (request, reply) => {
    const mode = field(request, 'email_mode');
    const hour = Number(field(request, 'digest_hour'));
    if (!isEmailMode(mode) || !Number.isInteger(hour) || hour < 0 || hour > 23) {
      return render(request, reply, { error: 'Choose how change emails come, and an hour from the list.', status: 422 });
    }
    await changeAccount(deps, request.owner!.accountId, { email_mode: mode, digest_hour: hour });
    return seeOther(reply, '/settings?notice=email-mode-saved');
  });
};
