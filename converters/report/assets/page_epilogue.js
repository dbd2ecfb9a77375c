
  try { main(); } catch (e) { errors.push('main: ' + (e && e.message ? e.message : String(e))); }
  if (location.hash === '#selftest') {
    try { sorted = selfTest(); } catch (e) { errors.push('selftest: ' + e.message); }
  }
  status();
})();
