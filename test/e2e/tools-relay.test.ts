// The tools end to end over the relay: MCP SDK client -> local workerd (Worker + Hub) -> the vimrelay agent process
// -> a real headless Neovim holding non-ASCII text. The cases are in tools-suite.ts, shared by every chain.
import { describeTools } from './tools-suite.ts';

describeTools('relay');
