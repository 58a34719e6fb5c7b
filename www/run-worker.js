// buddyscope's run worker (app/src/runjob): a long scenario run off the page's main thread.
//
// A module worker, copied next to index.html (trunk copy-file). It runs the page's own wasm: the
// page posts the URL of its wasm-bindgen glue (found in the page, so `--public-url` sub-paths
// work) and its compiled WebAssembly.Module (nothing is fetched or compiled twice); the glue's
// init runs the app's `main`, which mounts nothing here (no window), then the exported
// `buddyscope_worker_run` runs the scenario (and fetches the encoder's own wasm module, a split
// point, the first time). Messages back: {type: "progress", done, total},
// then {type: "done", bytes, encode_ms, run_ms} (the ArrayBuffer is transferred, not copied) or
// {type: "error", message}. The page cancels by terminating the worker.
//
// A trace replay ({kind: "replay", file, start, profile}) calls `buddyscope_worker_replay`
// instead, which reads the File a chunk at a time (FileReaderSync) into the engine's streaming
// replay; its progress is {type: "replay-progress", pass, bytes, total, lines, events}.
self.onmessage = async (event) => {
  const { glue, module, text, debug_panic, kind } = event.data;
  try {
    const bindings = await import(glue);
    await bindings.default({ module_or_path: module });
    if (kind === "replay") {
      const { file, start, profile } = event.data;
      let last = 0;
      const progress = (pass, bytes, total, lines, events) => {
        const now = performance.now();
        if (bytes === 0 || bytes >= total || now - last >= 50) {
          last = now;
          self.postMessage({ type: "replay-progress", pass, bytes, total, lines, events });
        }
      };
      const { bytes } = await bindings.buddyscope_worker_replay(file, start, profile, progress);
      self.postMessage({ type: "done", bytes }, [bytes.buffer]);
      return;
    }
    let last = 0;
    const progress = (done, total) => {
      const now = performance.now();
      if (done === 0 || done >= total || now - last >= 50) {
        last = now;
        self.postMessage({ type: "progress", done, total });
      }
    };
    const { bytes, run_ms, encode_ms } = await bindings.buddyscope_worker_run(text, progress, !!debug_panic);
    self.postMessage({ type: "done", bytes, run_ms, encode_ms }, [bytes.buffer]);
  } catch (e) {
    self.postMessage({ type: "error", message: String((e && e.message) || e) });
  }
};
