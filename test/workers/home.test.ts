// The relay's front page and its 404s, as a browser and as an API client ask for them, against the
// real Worker in workerd: a page for Accept: text/html, JSON otherwise.
import { describe, expect, it } from 'vitest';
import { relay } from './helpers.ts';

const BROWSER = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('GET /', () => {
  it('a browser gets a short page: what this is, the MCP URL to paste, sign-in and pairing', async () => {
    const res = await relay('/', { headers: BROWSER });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toContain('text/html');
    expect(res.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    const body = await res.text();
    expect(body).toContain('<code>https://relay.test/mcp</code>');
    expect(body).toContain('href="/dashboard"');
    expect(body).toContain('vimrelay pair https://relay.test');
    expect(body).not.toMatch(/<script/i);
  });

  it('an API client gets the same facts as JSON', async () => {
    const res = await relay('/', { headers: { Accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'vimrelay', mcp_url: 'https://relay.test/mcp', dashboard_url: 'https://relay.test/dashboard' });
    expect(((await (await relay('/')).json()) as { mcp_url: string }).mcp_url).toBe('https://relay.test/mcp');
  });
});

describe('a path that does not exist', () => {
  it.each(['/nope', '/dashboard-x', '/pair/nothing/here', '/.well-known/nothing'])('%s: a 404 page for a browser, JSON for an API client', async (path) => {
    const page = await relay(path, { headers: BROWSER });
    expect(page.status).toBe(404);
    expect(page.headers.get('Content-Type')).toContain('text/html');
    expect(await page.text()).toContain('<h1>Not found</h1>');
    const api = await relay(path, { headers: { Accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No such endpoint.' } });
  });
});
