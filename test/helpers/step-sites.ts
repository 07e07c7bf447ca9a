import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FixtureServer } from './fixture-server.ts';

// Fixture pages that show what a watcher wants only after an action (issue
// #42): each needs one kind of browser step. Served by the local fixture
// server; the scripts are inline, so a page needs no other file.

const html = (res: ServerResponse, body: string, headers: Record<string, string> = {}) =>
  void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

function page(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
}

/** The shop's price, changeable by tests. */
export interface StepSiteState {
  price: string;
  /** the supplier portal's password */
  password: string;
  /** the price the portal shows once signed in */
  portalPrice: string;
  /** the host a click on the off-site page goes to (another loopback address) */
  otherOrigin: string;
  /** the id of the cookie wall's button (a site redesign changes it) */
  acceptId: string;
  /** the Cookie header of each request for /consent, when a test wants them */
  cookiesSeen?: string[];
}

export function routeStepSites(site: FixtureServer, state: StepSiteState): void {
  // A cookie wall: the price is written only once "Accept" is clicked.
  site.route('/cookie-wall', (_req, res) =>
    html(
      res,
      page(
        'Cookie wall',
        `<div id="wall"><p>We use cookies.</p><button id="${state.acceptId}">Accept</button></div>
         <main id="content" hidden><h1 id="product-title">Kettle</h1><p id="price"></p></main>
         <script>document.querySelector('#wall button').addEventListener('click', () => {
           document.getElementById('wall').remove();
           document.getElementById('content').hidden = false;
           document.getElementById('price').textContent = ${JSON.stringify(state.price)};
         });</script>`,
      ),
    ),
  );
  // A size selector: each size has its own price.
  site.route('/sizes', (_req, res) =>
    html(
      res,
      page(
        'Sizes',
        `<label>Size <select id="size"><option value="s">Small</option><option value="l">Large</option></select></label>
         <p id="price">€10.00</p>
         <script>document.getElementById('size').addEventListener('change', (e) => {
           document.getElementById('price').textContent = e.target.value === 'l' ? '€25.00' : '€10.00';
         });</script>`,
      ),
    ),
  );
  // A list whose later items come from the server on "Load more".
  site.route('/list', (_req, res) =>
    html(
      res,
      page(
        'List',
        `<ul id="items"><li>One</li><li>Two</li></ul><button id="more">Load more</button>
         <script>document.getElementById('more').addEventListener('click', async () => {
           const items = await (await fetch('/list-more')).json();
           for (const item of items) { const li = document.createElement('li'); li.textContent = item; document.getElementById('items').append(li); }
         });</script>`,
      ),
    ),
  );
  site.route('/list-more', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('["Three","Four"]'));
  // A postcode form: stock is shown for the postcode typed, after Enter.
  site.route('/postcode', (_req, res) =>
    html(
      res,
      page(
        'Postcode',
        `<form id="form"><input id="postcode" name="postcode"></form><p id="stock">Enter your postcode</p>
         <script>document.getElementById('form').addEventListener('submit', (e) => {
           e.preventDefault();
           const code = document.getElementById('postcode').value;
           document.getElementById('stock').textContent = code.startsWith('10') ? 'In stock at your store' : 'Out of stock at your store';
         });</script>`,
      ),
    ),
  );
  // A login form posting to the server; the portal shows the price only with the session cookie.
  site.route('/login', (req, res) => {
    if (req.method === 'POST') return void signIn(req, res, state);
    html(
      res,
      page(
        'Sign in',
        `<form method="post" action="/login"><input id="user" name="user"><input id="password" name="password" type="password">
         <button id="sign-in" type="submit">Sign in</button></form>`,
      ),
    );
  });
  site.route('/portal', (req, res) => {
    if (!(req.headers.cookie ?? '').includes('session=ok')) {
      return void res.writeHead(302, { location: '/login' }).end();
    }
    html(res, page('Portal', `<h1>Supplier portal</h1><p id="price">${state.portalPrice}</p>`));
  });
  // A link to another host; its click must be refused.
  site.route('/off-site', (_req, res) =>
    html(res, page('Off site', `<h1 id="product-title">Kettle</h1><a id="away" href="${state.otherOrigin}/elsewhere">Elsewhere</a>`)),
  );
  // Popups, dialogs and a download on one click: all dismissed, the page stays.
  site.route('/interruptions', (_req, res) =>
    html(
      res,
      page(
        'Interruptions',
        `<h1 id="product-title">Kettle</h1><p id="after">before</p><button id="go">Go</button>
         <script>document.getElementById('go').addEventListener('click', () => {
           window.open('/list');
           const answer = confirm('Leave?');
           document.getElementById('after').textContent = answer ? 'confirmed' : 'dismissed';
         });</script>`,
      ),
    ),
  );

  // Two checkboxes: the price shows once the terms are ticked and the newsletter is cleared.
  site.route('/options', (_req, res) =>
    html(
      res,
      page(
        'Options',
        `<label><input type="checkbox" id="terms"> Terms</label>
         <label><input type="checkbox" id="newsletter" checked> Newsletter</label><p id="price">Accept the terms</p>
         <script>const show = () => {
           const ready = document.getElementById('terms').checked && !document.getElementById('newsletter').checked;
           document.getElementById('price').textContent = ready ? '€12.00' : 'Accept the terms';
         };
         for (const id of ['terms', 'newsletter']) document.getElementById(id).addEventListener('change', show);</script>`,
      ),
    ),
  );
  // A long page: the list grows once scrolled to the bottom; a note far down says when it came into view.
  site.route('/lazy', (_req, res) =>
    html(
      res,
      page(
        'Lazy',
        `<ul id="items"><li>One</li></ul><div style="height: 4000px"></div><p id="late">waiting</p><div style="height: 4000px"></div>
         <script>let grown = false;
         addEventListener('scroll', () => {
           if (grown || scrollY + innerHeight < document.documentElement.scrollHeight - 10) return;
           grown = true;
           const li = document.createElement('li'); li.textContent = 'Two'; document.getElementById('items').append(li);
         });
         new IntersectionObserver((entries) => {
           if (entries.some((e) => e.isIntersecting)) document.getElementById('late').textContent = 'in view';
         }).observe(document.getElementById('late'));</script>`,
      ),
    ),
  );
  // A cookie wall that remembers the choice in a cookie: a browser that kept it would find no button.
  site.route('/consent', (req, res) => {
    state.cookiesSeen?.push(req.headers.cookie ?? '');
    const remembered = (req.headers.cookie ?? '').includes('consent=yes');
    const wall = `<button id="accept">Accept</button><p id="price"></p>
      <script>document.getElementById('accept').addEventListener('click', () => {
        document.cookie = 'consent=yes; path=/; max-age=86400';
        document.getElementById('price').textContent = ${JSON.stringify(state.price)};
      });</script>`;
    html(res, page('Consent', remembered ? `<p id="price">${state.price}</p>` : wall));
  });
  // A click that makes requests: one to the site, one to the other host (which the SSRF guard may refuse).
  site.route('/step-fetches', (_req, res) =>
    html(
      res,
      page(
        'Step fetches',
        `<p id="after">before</p><button id="go">Go</button>
         <script>document.getElementById('go').addEventListener('click', async () => {
           const settle = (p) => p.then(() => 'reached', () => 'refused');
           const own = await settle(fetch('/list-more'));
           const other = await settle(fetch(${JSON.stringify(`${state.otherOrigin}/leak`)}, { mode: 'no-cors' }));
           document.getElementById('after').textContent = 'own ' + own + ', other ' + other;
         });</script>`,
      ),
    ),
  );
  // A link on the site whose server redirects to the other host.
  site.route('/bounce', (_req, res) => void res.writeHead(302, { location: `${state.otherOrigin}/elsewhere` }).end());
  site.route('/off-site-redirect', (_req, res) =>
    html(res, page('Off site by redirect', `<h1 id="product-title">Kettle</h1><a id="away" href="/bounce">Elsewhere</a>`)),
  );
  // A page that shows what was typed into it next to the price, as careless sites do.
  site.route('/echo', (_req, res) =>
    html(
      res,
      page(
        'Echo',
        `<input id="password" type="password"><button id="show">Show</button><p id="echo"></p>
         <script>document.getElementById('show').addEventListener('click', () => {
           const typed = document.getElementById('password').value;
           document.getElementById('echo').textContent = 'Price for ' + typed + ': ' + ${JSON.stringify(state.price)};
         });</script>`,
      ),
    ),
  );
  // A click that starts a download, opens a file chooser and asks for two permissions.
  site.route('/prompts', (_req, res) =>
    html(
      res,
      page(
        'Prompts',
        `<p id="after">before</p><button id="go">Go</button><input id="file" type="file">
         <a id="download" href="/list-more" download="list.json">Download</a>
         <script>document.getElementById('go').addEventListener('click', async () => {
           document.getElementById('download').click();
           document.getElementById('file').click();
           const notifications = await Notification.requestPermission();
           const place = await new Promise((done) =>
             navigator.geolocation.getCurrentPosition(() => done('granted'), () => done('denied'), { timeout: 2000 }));
           document.getElementById('after').textContent = 'notifications ' + notifications + ', geolocation ' + place;
         });</script>`,
      ),
    ),
  );
}

function signIn(req: IncomingMessage, res: ServerResponse, state: StepSiteState): void {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const form = new URLSearchParams(body);
    if (form.get('password') !== state.password) {
      // Echoed, as careless sites do: what the watcher keeps of this page must not hold it.
      const echoed = (form.get('password') ?? '').replace(/[<&>"]/g, '');
      return html(res, page('Sign in', `<p id="error">Wrong password ${echoed}</p><form method="post" action="/login"></form>`));
    }
    res.writeHead(303, { location: '/portal', 'set-cookie': 'session=ok; Path=/; HttpOnly' }).end();
  });
}
