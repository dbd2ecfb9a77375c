  // The end of a page script used as a library (instead of
  // page_epilogue.js, which draws the page): it draws nothing and registers
  // what the script's libExports() returns as window.tbprofLibs[<name>], for
  // a page that loads the script from a URL and draws one view at a time
  // (tbprof's TensorBoard tab, python/tbprof/tensorboard_plugin).
  var lib = libExports();
  window.tbprofLibs = window.tbprofLibs || {};
  window.tbprofLibs[lib.name] = lib;
})();
