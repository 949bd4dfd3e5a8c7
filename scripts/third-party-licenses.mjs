// thirdPartyLicenses(root, inputs): the notices of the npm packages esbuild bundled into dist/
// (build.mjs), as Markdown: each package's name, version and license, and the text of its license
// file (LICENSE, LICENCE or COPYING, any extension), as the MIT and ISC licenses ask of copies.
// `inputs` are the bundle's input paths, relative to `root` (esbuild's metafile).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package directory (relative to root) of each input under node_modules, once each. */
function packageDirs(inputs) {
  const dirs = new Set();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) dirs.add(match[1]);
  }
  return [...dirs].sort();
}

export function thirdPartyLicenses(root, inputs) {
  const sections = packageDirs(inputs).map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(root, dir)).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
    const text = file ? readFileSync(join(root, dir, file), 'utf8').trim() : `(${pkg.name} ships no license file; its package.json says ${pkg.license ?? 'nothing'}.)`;
    return `## ${pkg.name} ${pkg.version} (${pkg.license ?? 'no license named'})\n\n\`\`\`\n${text}\n\`\`\``;
  });
  return `# Third-party licenses\n\nvimrelay's dist/ bundles these npm packages.\n\n${sections.join('\n\n')}\n`;
}
