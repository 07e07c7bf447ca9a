// pagewatch dashboard: small progressive enhancements. Every page works without it.
'use strict';

// "Copy" buttons: <button data-copy="ID"> copies the value of input #ID.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const input = document.getElementById(button.getAttribute('data-copy'));
  const status = document.querySelector(`[data-copy-status="${button.getAttribute('data-copy')}"]`);
  if (!input) return;
  input.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch {
    // Clipboard API unavailable (plain http on a non-local address): fall back to the selection.
    copied = document.execCommand && document.execCommand('copy');
  }
  if (status) status.textContent = copied ? 'Copied to the clipboard.' : 'Press Ctrl+C (or ⌘C) to copy the selected token.';
});

// Target kind selects show only the rules of that kind.
function syncRules(kindSelect) {
  const ruleSelect = document.getElementById(kindSelect.getAttribute('data-rules'));
  if (!ruleSelect) return;
  for (const group of ruleSelect.querySelectorAll('optgroup')) {
    const visible = group.getAttribute('data-kind') === kindSelect.value;
    group.hidden = !visible;
    group.disabled = !visible;
  }
  const selected = ruleSelect.selectedOptions[0];
  if (selected && selected.parentElement && selected.parentElement.disabled) {
    const first = ruleSelect.querySelector(`optgroup[data-kind="${kindSelect.value}"] option`);
    if (first) first.selected = true;
  }
}
// ...and only the fields of that kind (fields with data-kinds naming other kinds are hidden).
function syncFields(kindSelect) {
  const row = document.getElementById(kindSelect.getAttribute('data-fields'));
  const fieldset = kindSelect.closest('fieldset');
  if (!row || !fieldset) return;
  for (const field of fieldset.querySelectorAll('[data-kinds]')) {
    field.hidden = !field.getAttribute('data-kinds').split(' ').includes(kindSelect.value);
  }
}
function syncKind(kindSelect) {
  syncRules(kindSelect);
  syncFields(kindSelect);
}
for (const select of document.querySelectorAll('select[data-rules]')) {
  syncKind(select);
  select.addEventListener('change', () => syncKind(select));
}

// Choosing an element the preview marked as a price (or an availability) sets the target's kind to match.
const KIND_OF_HINT = { price: 'price', availability: 'availability' };
for (const select of document.querySelectorAll('select[data-kind-select]')) {
  select.addEventListener('change', () => {
    const kindSelect = document.getElementById(select.getAttribute('data-kind-select'));
    const hints = (select.selectedOptions[0]?.getAttribute('data-hints') || '').split(' ');
    const kind = hints.map((hint) => KIND_OF_HINT[hint]).find(Boolean);
    if (!kindSelect || !kind || kindSelect.value === kind) return;
    kindSelect.value = kind;
    syncKind(kindSelect);
  });
}

// Receipt progress: a page with data-refresh-seconds reloads itself while a check is pending.
const refresh = document.querySelector('[data-refresh-seconds]');
if (refresh) {
  const seconds = Number(refresh.getAttribute('data-refresh-seconds'));
  if (seconds > 0) setTimeout(() => window.location.reload(), seconds * 1000);
}
