// Parse Mermaid files with the official parser (mermaid.parse), offline: no browser, only jsdom
// for the DOM globals mermaid expects at import time.  Prints "ok <file>" per file; exits 1 on
// the first parse error with its message.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true });
globalThis.window = dom.window;
globalThis.document = dom.window.document;
globalThis.DOMParser = dom.window.DOMParser;
globalThis.Element = dom.window.Element;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });
for (const file of process.argv.slice(2)) {
  try {
    const result = await mermaid.parse(readFileSync(file, 'utf8'));
    console.log(`ok ${file} ${result.diagramType}`);
  } catch (e) {
    console.error(`parse error in ${file}: ${e.message || e}`);
    process.exit(1);
  }
}
