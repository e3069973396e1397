// The review's node editor: the current node's comment (a box and "Save"), and the node's
// place in the tree ("Make it the main line", "Delete this branch"). Each makes one op; the page
// sends it to the room or applies it to the copy explored alone.

import { t } from './i18n.js';
import { h, put } from './ui.js';

export class EditPanel {
  /** @param {{tree: () => any, node: () => number, edit: (op) => Promise<any>}} page */
  constructor(box, page) {
    this.box = box;
    this.page = page;
    this.at = null; // the node the comment box shows
    this.text = h('textarea', { id: 'comment-text', rows: '3', maxlength: '4000', 'data-user': '', translate: 'no' });
    this.save = h('button', { type: 'button', class: 'small primary', id: 'comment-save' });
    this.text.oninput = () => {
      this.save.disabled = this.text.value === this.#current();
    };
    this.save.onclick = async () => {
      this.save.disabled = true;
      await this.page.edit({ op: 'comment', node: this.at, text: this.text.value });
    };
  }

  #current() {
    return this.page.tree().node(this.at)?.comment ?? '';
  }

  render(editable) {
    if (!editable) {
      put(this.box);
      this.box.hidden = true;
      this.at = null;
      return;
    }
    this.box.hidden = false;
    const tree = this.page.tree();
    const id = this.page.node();
    const n = tree.node(id);
    // A draft being typed stays while the same node is shown; another node shows its own.
    if (this.at !== id || document.activeElement !== this.text) {
      this.at = id;
      this.text.value = n.comment;
    }
    this.save.disabled = this.text.value === n.comment;
    this.save.textContent = t('rv.save_comment');
    this.text.setAttribute('aria-label', t('rv.comment'));
    this.text.placeholder = t('rv.comment');
    const parent = n.parent === null ? null : tree.node(n.parent);
    const promote = h('button', { type: 'button', class: 'small', id: 'node-promote', disabled: !parent || parent.children[0] === id }, t('rv.promote'));
    promote.onclick = () => this.page.edit({ op: 'promote', node: id });
    const del = h('button', { type: 'button', class: 'small danger', id: 'node-delete', disabled: !parent }, t('rv.delete'));
    del.onclick = () => this.page.edit({ op: 'delete', node: id });
    put(this.box, h('label', { class: 'field' }, h('span', {}, t('rv.comment')), this.text), h('div', { class: 'row' }, this.save, promote, del));
  }
}
