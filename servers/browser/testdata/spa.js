// A single-page app: client-side routes (history.pushState), every view fetched from a JSON API
// that answers after a short delay, as real APIs do, and rendered when it arrives.
const app = document.getElementById('app');
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));

async function api(path, init) {
  const r = await fetch(path, init);
  if (!r.ok) throw new Error(path + ': ' + r.status);
  return r.json();
}

const views = {
  async list() {
    const orders = await api('/api/orders');
    document.title = 'Orders — Acme';
    app.innerHTML = '<h1>Orders</h1><table><thead><tr><th>Order</th><th>Customer</th><th>Total</th><th>Status</th></tr></thead><tbody>' +
      orders.map(o => `<tr><td><a href="/app/orders/${o.id}">Order ${o.id}</a></td><td>${esc(o.customer)}</td><td>${esc(o.total)}</td><td>${esc(o.status)}</td></tr>`).join('') +
      '</tbody></table>';
  },
  async order(id) {
    const o = await api('/api/orders/' + encodeURIComponent(id));
    document.title = 'Order ' + o.id + ' — Acme';
    app.innerHTML = `<h1>Order ${esc(o.id)}</h1><p>Customer: ${esc(o.customer)}</p><p>Ships to: ${esc(o.address)}</p>` +
      `<p>Total: ${esc(o.total)}. Status: ${esc(o.status)}.</p><p><a href="/app">All orders</a></p>`;
  },
  async create() {
    document.title = 'New order — Acme';
    app.innerHTML = `<h1>New order</h1><form id="new">
<label>Customer <input name="customer" required></label>
<label>Delivery date <input name="date" type="date" required></label>
<label>Quantity <input name="qty" type="number" min="1" value="1"></label>
<label>Express <input name="express" type="checkbox"></label>
<button>Place order</button></form><p id="status" role="status"></p>`;
    document.getElementById('new').addEventListener('submit', async e => {
      e.preventDefault();
      const form = new FormData(e.target);
      document.getElementById('status').textContent = 'Saving…';
      const o = await api('/api/orders', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify(Object.fromEntries(form))});
      go('/app/orders/' + o.id);
    });
  },
};

async function render() {
  const p = location.pathname;
  app.setAttribute('aria-busy', 'true');
  try {
    if (p.startsWith('/app/orders/')) await views.order(p.slice('/app/orders/'.length));
    else if (p === '/app/new') await views.create();
    else await views.list();
  } catch (err) {
    app.innerHTML = '<p role="alert">Could not load: ' + esc(err.message) + '</p>';
  }
  app.removeAttribute('aria-busy');
}

function go(path) {
  history.pushState(null, '', path);
  render();
}

document.addEventListener('click', e => {
  const a = e.target.closest('a[href^="/app"]');
  if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  go(a.getAttribute('href'));
});
addEventListener('popstate', render);
render();
