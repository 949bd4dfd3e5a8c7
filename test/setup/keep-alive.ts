/**
 * Every Node test process's HTTP client keeps idle connections for one second. workerd (as
 * `npm start` runs it) closes an idle connection after five seconds without announcing it (no
 * `Keep-Alive` header), and Node's fetch keeps one for four: on a loaded machine a request could
 * go out on a socket the server is closing at that moment ("other side closed"). One second
 * leaves a margin no event-loop stall in these tests comes near. Node's own fetch reads the
 * global dispatcher that undici's `setGlobalDispatcher` sets.
 */
import { Agent, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 }));
