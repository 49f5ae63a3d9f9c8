/*
 * The sign-up form widget, served as GET /widget.js (app/widget.js/route.ts; docs/integrations.md).
 * Plain browser JavaScript, no dependencies, no inline styles (a strict style-src CSP allows it):
 * messages carry the classes ev-message, ev-message--blocked, ev-suggestion, and fields a
 * data-ev-state, for the site to style. Whatever goes wrong on our side (down, slow, refused: a
 * 429 when the key's rate or daily budget is spent), the form is let through, unless the page says
 * data-fail="closed": then the form waits for a check that answers, with a message.
 */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || !window.fetch) return;
  var cfg = script.dataset;
  var api = (cfg.api || new URL(script.src, location.href).origin).replace(/\/+$/, '');
  var timeoutMs = Number(cfg.timeout) > 0 ? Number(cfg.timeout) : 3000;
  var failClosed = cfg.fail === 'closed';
  var block = (cfg.block || 'undeliverable,disposable').split(',').map(function (s) { return s.trim(); }).filter(Boolean);
  var text = {
    undeliverable: cfg.messageUndeliverable || 'This email address cannot receive mail.',
    disposable: cfg.messageDisposable || 'Please use a permanent email address, not a disposable one.',
    risky: cfg.messageRisky || 'This email address may not receive mail.',
    unknown: cfg.messageUnknown || 'We could not check this email address.',
    'catch-all': cfg.messageCatchAll || 'This email address may not receive mail.',
    'role-based': cfg.messageRole || 'Please use a personal email address.',
    role: cfg.messageRole || 'Please use a personal email address.',
    free: cfg.messageFree || 'Please use a work email address.',
    suggestion: cfg.messageSuggestion || 'Did you mean {suggestion}?',
    unavailable: cfg.messageUnavailable || 'We could not check this email address just now. Please try again in a moment.'
  };
  var SELECTOR = 'input[type=email]:not([data-ev-verify=false]), input[data-ev-verify]:not([data-ev-verify=false])';
  var results = {}; // email → { verdict, blocked }
  var passing = new WeakSet(); // forms resubmitted after their check: let through once
  var counter = 0;

  /** The verdict's tokens data-block can name: its status, then the flags. */
  function blockedBy(verdict) {
    var tokens = [];
    if (verdict.disposable) tokens.push('disposable');
    if (verdict.role) tokens.push('role');
    if (verdict.free) tokens.push('free');
    tokens.push(verdict.status);
    for (var i = 0; i < tokens.length; i++) if (block.indexOf(tokens[i]) !== -1) return tokens[i];
    return null;
  }

  function ask(email) {
    var controller = typeof AbortController === 'function' ? new AbortController() : null;
    var timer = setTimeout(function () { if (controller) controller.abort(); }, timeoutMs);
    var headers = { 'Content-Type': 'application/json' };
    if (cfg.sandbox === 'true') headers['X-EV-Sandbox'] = 'true';
    var request = fetch(api + '/v1/verify/single?key=' + encodeURIComponent(cfg.key || ''), {
      method: 'POST', mode: 'cors', credentials: 'omit', headers: headers, body: JSON.stringify({ email: email }),
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      return response.ok ? response.json() : null;
    });
    var late = new Promise(function (resolve) { setTimeout(function () { resolve(null); }, timeoutMs + 50); });
    return Promise.race([request, late]).catch(function () { return null; }).then(function (verdict) {
      clearTimeout(timer);
      if (!verdict || typeof verdict.status !== 'string') return null; // slow, down or refused: never blocks
      var result = { verdict: verdict, blocked: blockedBy(verdict) };
      results[email] = result;
      return result;
    });
  }

  function messageFor(input) {
    var id = input.getAttribute('data-ev-message');
    var existing = id && document.getElementById(id);
    if (existing) return existing;
    var message = document.createElement('div');
    message.id = 'ev-message-' + (++counter);
    message.className = 'ev-message';
    message.setAttribute('role', 'status');
    message.setAttribute('aria-live', 'polite');
    message.hidden = true;
    input.setAttribute('data-ev-message', message.id);
    input.insertAdjacentElement('afterend', message);
    var described = (input.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
    described.push(message.id);
    input.setAttribute('aria-describedby', described.join(' '));
    return message;
  }

  // A message shown or hidden moves what follows its field. A press on the submit button commits a
  // changed field (its blur fires change), and an answer the widget holds is shown at once: the button
  // would move from under the pointer before its release, and the click would be lost (no submit).
  // While a pointer is down, fields are painted once it is released, after the click it makes.
  var pressed = false;
  var deferred = new Map(); // input → the result to paint on release
  var stuck = 0;
  function release() {
    pressed = false;
    clearTimeout(stuck);
    setTimeout(function () {
      if (pressed) return; // pressed again: the next release paints
      deferred.forEach(function (result, input) { paint(input, result); });
      deferred.clear();
    }, 0);
  }
  window.addEventListener('pointerdown', function () {
    pressed = true;
    clearTimeout(stuck);
    stuck = setTimeout(release, 2000); // a release the page never sees (the pointer left the window)
  }, true);
  window.addEventListener('pointerup', release, true);
  window.addEventListener('pointercancel', release, true);

  function show(input, result) {
    if (pressed) return void deferred.set(input, result);
    deferred.delete(input);
    paint(input, result);
  }

  function paint(input, result) {
    var message = messageFor(input);
    while (message.firstChild) message.removeChild(message.firstChild);
    // no answer: with data-fail="closed" the field holds the form back, as a blocked one does
    var blocked = result ? result.blocked : failClosed ? 'unavailable' : null;
    var suggestion = result && result.verdict.did_you_mean;
    input.setAttribute('data-ev-state', !result ? 'unavailable' : blocked ? 'blocked' : 'ok');
    if (blocked) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    message.className = 'ev-message' + (blocked ? ' ev-message--blocked' : '');
    if (blocked) message.appendChild(document.createTextNode(text[blocked] || text.undeliverable));
    if (suggestion) {
      if (blocked) message.appendChild(document.createTextNode(' '));
      var parts = text.suggestion.split('{suggestion}');
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'ev-suggestion';
      button.textContent = suggestion;
      button.addEventListener('click', function () {
        input.value = suggestion;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new Event('change', { bubbles: true }));
        input.focus();
      });
      message.appendChild(document.createTextNode(parts[0] || ''));
      message.appendChild(button);
      message.appendChild(document.createTextNode(parts.slice(1).join(suggestion)));
    }
    message.hidden = !blocked && !suggestion;
  }

  function check(input) {
    var email = input.value.trim();
    if (!email) {
      show(input, { verdict: {}, blocked: null });
      return Promise.resolve(null);
    }
    var known = results[email];
    input.setAttribute('data-ev-state', 'checking');
    return (known ? Promise.resolve(known) : ask(email)).then(function (result) {
      if (input.value.trim() !== email) return result; // typed on meanwhile: the next change asks again
      show(input, result);
      if (result) {
        input.dispatchEvent(new CustomEvent('ev:verified', { bubbles: true, detail: { email: email, verdict: result.verdict, blocked: !!result.blocked } }));
      }
      return result;
    });
  }

  function fieldsOf(form) {
    return Array.prototype.filter.call(form.querySelectorAll(SELECTOR), function (input) { return !input.disabled && input.value.trim(); });
  }

  document.addEventListener('change', function (event) {
    var input = event.target;
    if (input && input.matches && input.matches(SELECTOR)) check(input);
  }, true);

  // Capture on the document runs before the site's own submit handlers, so they see only a submission we let through.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (passing.has(form)) return void passing.delete(form);
    var fields = fieldsOf(form);
    var pending = fields.filter(function (input) { return !results[input.value.trim()]; });
    var blocked = fields.filter(function (input) { var r = results[input.value.trim()]; return r && r.blocked; });
    if (!pending.length && !blocked.length) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (blocked.length) {
      blocked.forEach(function (input) { show(input, results[input.value.trim()]); });
      return void blocked[0].focus();
    }
    var submitter = event.submitter;
    Promise.all(pending.map(check)).then(function (answers) {
      for (var i = 0; i < answers.length; i++) if ((answers[i] && answers[i].blocked) || (!answers[i] && failClosed)) return void pending[i].focus();
      passing.add(form);
      if (form.requestSubmit) form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
      else form.submit();
    });
  }, true);
})();
