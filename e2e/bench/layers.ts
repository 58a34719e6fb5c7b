// The page's compositor layers (CDP LayerTree), named by their DOM node: bench/rastertrace.bench.ts
// prints them and names the layer ids of its raster tasks with them.
import type { Page } from '@playwright/test';

/** The page's layers after one more step: id, size, whether it draws, its node, the reasons. */
export async function describeLayers(page: Page): Promise<string[]> {
  const out: string[] = [];
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('DOM.getDocument', { depth: -1 });
  const changed = new Promise<any>((r) => cdp.on('LayerTree.layerTreeDidChange', (e: any) => e.layers && r(e.layers)));
  await cdp.send('LayerTree.enable');
  await page.keyboard.press('ArrowRight');
  const layers = (await changed) as any[];
  const describe = async (backendNodeId?: number) => {
    if (!backendNodeId) return '';
    try {
      const { node } = (await cdp.send('DOM.describeNode', { backendNodeId })) as any;
      const attrs: string[] = node.attributes ?? [];
      const get = (k: string) => {
        const i = attrs.indexOf(k);
        return i >= 0 ? attrs[i + 1] : '';
      };
      let box = '';
      try {
        const { model } = (await cdp.send('DOM.getBoxModel', { backendNodeId })) as any;
        box = ` box ${Math.round(model.border[0])},${Math.round(model.border[1])} ${model.width}x${model.height}`;
      } catch {
        // a text node has no box model
      }
      let parent = '';
      if (node.nodeName === '#text' || node.nodeName === 'LI') {
        const { object } = (await cdp.send('DOM.resolveNode', { backendNodeId })) as any;
        const r = (await cdp.send('Runtime.callFunctionOn', {
          objectId: object.objectId,
          functionDeclaration: 'function () { let e = this.nodeType === 3 ? this.parentElement : this; const out = []; for (let k = 0; e && k < 4; k++, e = e.parentElement) out.push(e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ").join(".") : "") + (e.dataset.testid ? "[" + e.dataset.testid + "]" : "")); const b = (this.nodeType === 3 ? this.parentElement : this).getBoundingClientRect(); return out.join(" < ") + " rect " + [b.x, b.y, b.width, b.height].map(Math.round).join(","); }',
          returnByValue: true,
        })) as any;
        parent = ' in ' + r.result.value;
      }
      return `${box}${parent} ${node.nodeName.toLowerCase()}${get('id') ? '#' + get('id') : ''}${get('class') ? '.' + get('class').split(/\s+/).join('.') : ''}${get('data-testid') ? `[${get('data-testid')}]` : ''}`;
    } catch {
      return '?';
    }
  };
  for (const l of layers) {
    let reasons: string[] = [];
    try {
      reasons = ((await cdp.send('LayerTree.compositingReasons', { layerId: l.layerId })) as any).compositingReasonIds ?? [];
    } catch {
      // layers of the root may have none
    }
    out.push(
      `${l.layerId.padStart(4)} parent ${String(l.parentLayerId ?? '-').padStart(4)} ${String(Math.round(l.width)).padStart(5)}x${String(Math.round(l.height)).padEnd(5)} at ${Math.round(l.offsetX)},${Math.round(l.offsetY)} draws ${l.drawsContent ? 'y' : 'n'} paints ${l.paintCount} ${await describe(l.backendNodeId)} ${reasons.join(',')}`,
    );
  }
  await cdp.detach();
  return out;
}
