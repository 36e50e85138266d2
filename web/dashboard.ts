// The agency dashboard's one script: copy buttons (a secret shown once, an embed snippet). Everything else
// works without JavaScript (forms post, confirmations are <details>).
for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | HTMLTextAreaElement | null;
    if (!target) return;
    const status = button.parentElement?.parentElement?.querySelector('[role="status"]');
    try {
      await navigator.clipboard.writeText(target.value);
      if (status) status.textContent = 'Copied to the clipboard.';
    } catch {
      target.focus();
      target.select();
      if (status) status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    }
  });
}
