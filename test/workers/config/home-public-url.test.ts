// Under PUBLIC_URL the front page names the public MCP URL, whichever host the request reached.
import { exports } from 'cloudflare:workers';
import { expect, it } from 'vitest';

it('the front page names PUBLIC_URL\'s MCP URL', async () => {
  const res = await exports.default.fetch(new Request('https://alias.example/', { headers: { Accept: 'text/html' } }));
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('<code>https://public.example/mcp</code>');
});
