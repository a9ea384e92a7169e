// ecgpipe view: draws a recording from the server's min/max pyramid (tiles of the visible range
// only), the detected beats (coloured by class, else by score), the reference beats with misses
// and false positives, a heart-rate lane and the outlier list. No libraries: canvas 2D only.
// window.ecgview exposes the state for the browser tests and the benchmark (scripts/view-bench.py).
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const sigCanvas = $('signal'), hrCanvas = $('hr');
  // Beats are fetched and drawn when at most this many seconds are visible (a few hundred beats);
  // wider views show the heart-rate lane and the outliers' positions instead.
  const BEAT_SPAN_S = 600;
  const MIN_SPAN = 10;           // samples: the closest zoom (a sample every ~100 px)
  const OUTLIER_SPAN_S = 4;      // seconds shown around an outlier when jumping to it
  const TOP = 18, REF_LANE = 18, AXIS = 22;  // px bands of the signal canvas (CSS px)
  const CLASS_COLOURS = { N: '#2e7d32', S: '#ef8f00', V: '#d62728', F: '#8e44ad', Q: '#7f7f7f' };

  const S = {
    meta: null, outliers: [], current: -1,
    t0: 0, t1: 1,
    tiles: new Map(), inflight: new Set(), failed: new Set(),
    beats: null, beatsKey: '', hr: null, hrKey: '',
    settled: false, firstPaintMs: null, stepStart: 0, lastStepMs: null, draws: 0,
    drawn: { level: -1, envelope: null, markers: [], reference: [] },
    rafPending: false,
  };
  window.ecgview = S;

  // ---- time formatting: h:mm:ss with as many decimals as the axis step needs
  function clock(sec, decimals) {
    const neg = sec < 0, unit = Math.pow(10, decimals);
    sec = Math.round(Math.abs(sec) * unit) / unit;  // round once, so 59.96 s becomes 0:01:00.0
    const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60);
    let s = (sec - 3600 * h - 60 * m).toFixed(decimals);
    if (s.indexOf('.') === 1 || s.length === 1) s = '0' + s;
    return (neg ? '-' : '') + h + ':' + String(m).padStart(2, '0') + ':' + s;
  }
  S.clock = clock;

  function fetchJson(url) {
    return fetch(url).then((r) => r.ok ? r.json() : r.text().then((t) => { throw new Error(url + ': ' + r.status + ' ' + t); }));
  }

  // ---- view
  function clampView(t0, t1) {
    const n = S.meta.samples;
    const span = Math.max(MIN_SPAN, t1 - t0);
    if (span >= n) return [0, n];
    // The centre stays inside the recording (a beat near either end can still be centred).
    t0 = Math.min(Math.max(t0, -span / 2), n - span / 2);
    return [t0, t0 + span];
  }
  function setView(t0, t1) {
    [S.t0, S.t1] = clampView(t0, t1);
    S.settled = false;
    S.stepStart = performance.now();
    requestDraw();
  }
  S.setView = setView;
  S.centreOn = function (sample, spanSamples) {
    const span = spanSamples || (S.t1 - S.t0);
    setView(sample - span / 2, sample + span / 2);
  };
  function zoom(factor, anchor) {
    const a = anchor === undefined ? (S.t0 + S.t1) / 2 : anchor;
    setView(a - (a - S.t0) * factor, a + (S.t1 - a) * factor);
  }
  function pan(fraction) {
    const d = (S.t1 - S.t0) * fraction;
    setView(S.t0 + d, S.t1 + d);
  }
  S.zoom = zoom; S.pan = pan;

  // ---- data
  function tileKey(level, tile) { return level + '/' + tile; }
  function levelBins(level) { return Math.ceil(S.meta.samples / Math.pow(S.meta.factor, level)); }
  // The tiles of `level` covering samples [t0, t1).
  function tilesFor(level, t0, t1) {
    const bw = Math.pow(S.meta.factor, level), T = S.meta.tile_bins;
    const b0 = Math.max(0, Math.floor(t0 / bw)), b1 = Math.min(levelBins(level), Math.ceil(t1 / bw));
    const out = [];
    for (let t = Math.floor(b0 / T); t <= Math.floor((b1 - 1) / T); ++t) out.push(t);
    return out;
  }
  function requestTile(level, tile) {
    const key = tileKey(level, tile);
    if (S.tiles.has(key) || S.inflight.has(key) || S.failed.has(key)) return;
    S.inflight.add(key);
    fetch('/api/tile?level=' + level + '&tile=' + tile)
      .then((r) => { if (!r.ok) throw new Error('tile ' + key + ': ' + r.status); return r.arrayBuffer(); })
      .then((buf) => { S.tiles.set(key, new Float32Array(buf)); })
      .catch((e) => { S.failed.add(key); console.error(e); })
      .finally(() => { S.inflight.delete(key); requestDraw(); });
  }
  function haveTiles(level, t0, t1) {
    return tilesFor(level, t0, t1).every((t) => S.tiles.has(tileKey(level, t)));
  }
  // (min, max) of bin b at level, or undefined when its tile is not here.
  function bin(level, b) {
    const T = S.meta.tile_bins, tile = S.tiles.get(tileKey(level, Math.floor(b / T)));
    if (!tile) return undefined;
    const o = 2 * (b % T);
    return [tile[o], tile[o + 1]];
  }

  function beatsWanted() { return (S.t1 - S.t0) / S.meta.fs <= BEAT_SPAN_S; }
  // Whether the beats at hand cover the visible part of the recording.
  function haveBeats() {
    return !!S.beats && S.beats.from <= Math.max(0, S.t0) && S.beats.to >= Math.min(S.meta.samples, S.t1);
  }
  function requestBeats() {
    if (!beatsWanted() || haveBeats()) return;
    // Fetch a margin of half a view on each side, so small pans need no request.
    const span = S.t1 - S.t0;
    const from = Math.max(0, Math.floor(S.t0 - span / 2)), to = Math.ceil(S.t1 + span / 2);
    const key = from + '-' + to;
    if (S.beatsKey === key) return;
    S.beatsKey = key;
    S.inflight.add('beats');
    fetchJson('/api/beats?from=' + from + '&to=' + to)
      .then((j) => { if (S.beatsKey === key) S.beats = j; })
      .catch((e) => console.error(e))
      .finally(() => { S.inflight.delete('beats'); requestDraw(); });
  }
  function hrBins() { return Math.max(1, Math.min(2000, Math.floor(hrCanvas.clientWidth / 2))); }
  function requestHr() {
    const from = Math.max(0, Math.floor(S.t0)), to = Math.max(from + 1, Math.ceil(S.t1));
    const key = from + '-' + to + '-' + hrBins();
    if (S.hrKey === key) return;
    S.hrKey = key;
    S.inflight.add('hr');
    fetchJson('/api/hr?from=' + from + '&to=' + to + '&bins=' + hrBins())
      .then((j) => { if (S.hrKey === key) S.hr = j; })
      .catch((e) => console.error(e))
      .finally(() => { S.inflight.delete('hr'); requestDraw(); });
  }

  // ---- drawing
  function requestDraw() {
    if (S.rafPending) return;
    S.rafPending = true;
    requestAnimationFrame(() => { S.rafPending = false; draw(); });
  }
  function sizeCanvas(c) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(c.clientWidth * dpr)), h = Math.max(1, Math.round(c.clientHeight * dpr));
    if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return [ctx, c.clientWidth, c.clientHeight];
  }
  function scoreColour(s) {
    const m = S.meta, lo = m.score_p50, hi = m.outlier_threshold > lo ? m.outlier_threshold : m.score_p99;
    const t = hi > lo ? Math.min(1, Math.max(0, (s - lo) / (hi - lo))) : 0;
    const r = Math.round(70 + t * (214 - 70)), g = Math.round(120 + t * (39 - 120)), b = Math.round(181 + t * (40 - 181));
    return 'rgb(' + r + ',' + g + ',' + b + ')';
  }
  function beatColour(i) {
    const b = S.beats.beats;
    if (b.class !== undefined) {
      const c = CLASS_COLOURS[b.class[i]];
      if (c) return c;
    }
    return scoreColour(b.score[i]);
  }
  // AF episodes (rhythm.csv) in view, shaded from y0 to y1 under what is drawn next.
  const AF_SHADE = 'rgba(217,95,2,0.13)';
  function shadeAf(ctx, W, y0, y1) {
    const eps = S.meta.af_episodes || [];
    ctx.fillStyle = AF_SHADE;
    for (const [a, b] of eps) {
      if (b <= S.t0 || a >= S.t1) continue;
      const x0 = Math.max(0, (a - S.t0) / (S.t1 - S.t0) * W), x1 = Math.min(W, (b - S.t0) / (S.t1 - S.t0) * W);
      ctx.fillRect(x0, y0, Math.max(1, x1 - x0), y1 - y0);
    }
  }
  function timeTicks(ctx, W, x0, x1, y0, y1, withLabels) {
    const fs = S.meta.fs, secs = (S.t1 - S.t0) / fs, pxPerS = (x1 - x0) / secs;
    const steps = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600];
    let step = steps[steps.length - 1];
    for (const s of steps) if (s * pxPerS >= 90) { step = s; break; }
    const decimals = step >= 1 ? 0 : Math.min(3, Math.ceil(-Math.log10(step) - 1e-9));
    ctx.strokeStyle = '#e4e4e4'; ctx.fillStyle = '#333'; ctx.lineWidth = 1;
    ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    for (let t = Math.max(0, Math.ceil(S.t0 / fs / step)) * step; t <= S.t1 / fs; t += step) {
      const x = Math.round(x0 + (t * fs - S.t0) / (S.t1 - S.t0) * (x1 - x0)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1); ctx.stroke();
      if (withLabels) ctx.fillText(clock(t, decimals), x, y1 + 4);
    }
  }

  function drawSignal() {
    const [ctx, W, H] = sizeCanvas(sigCanvas);
    ctx.clearRect(0, 0, W, H);
    const m = S.meta, refLane = m.has_reference ? REF_LANE : 0;
    const plotTop = TOP, plotBottom = H - AXIS - refLane;
    const spp = (S.t1 - S.t0) / W;
    const want = Math.max(0, Math.min(m.levels - 1, Math.floor(Math.log(Math.max(spp, 1)) / Math.log(m.factor))));
    for (const t of tilesFor(want, S.t0, S.t1)) requestTile(want, t);
    // Draw from the finest level whose tiles are all here (coarser ones while finer ones load).
    let level = -1;
    for (let l = want; l < m.levels; ++l) if (haveTiles(l, S.t0, S.t1)) { level = l; break; }
    const complete = level === want;
    const sx = (s) => (s - S.t0) / spp;  // sample -> x
    shadeAf(ctx, W, plotTop, plotBottom);
    timeTicks(ctx, W, 0, W, plotTop, plotBottom + refLane, true);
    S.drawn = { level: level, envelope: null, markers: [], reference: [] };
    if (level < 0) return complete;

    const bw = Math.pow(m.factor, level), nb = levelBins(level);
    // Pass 1: per pixel column the (min, max) over its bins; pass 2: the y range and the strokes.
    const cols = [];
    let lo = Infinity, hi = -Infinity, first = Infinity, last = -Infinity;
    const dense = spp >= 1;
    if (dense) {
      for (let x = 0; x < W; ++x) {
        const s0 = S.t0 + x * spp, s1 = s0 + spp;
        if (s1 <= 0) continue;  // left of the recording's start
        const b0 = Math.max(0, Math.floor(s0 / bw)), b1 = Math.min(nb, Math.max(b0 + 1, Math.ceil(s1 / bw)));
        if (b0 >= nb) break;
        let mn = Infinity, mx = -Infinity;
        for (let b = b0; b < b1; ++b) { const v = bin(level, b); if (v) { mn = Math.min(mn, v[0]); mx = Math.max(mx, v[1]); } }
        if (mn === Infinity) continue;
        cols.push([x, mn, mx]);
        lo = Math.min(lo, mn); hi = Math.max(hi, mx);
        first = Math.min(first, b0 * bw); last = Math.max(last, Math.min(m.samples, b1 * bw));
      }
    } else {
      for (let i = Math.max(0, Math.floor(S.t0)); i < Math.min(m.samples, Math.ceil(S.t1) + 1); ++i) {
        const v = bin(0, i);
        if (!v) continue;
        cols.push([sx(i), v[0], v[0]]);
        lo = Math.min(lo, v[0]); hi = Math.max(hi, v[0]);
        first = Math.min(first, i); last = Math.max(last, i + 1);
      }
    }
    if (!(hi > lo)) { hi = lo + 1; lo -= 1; }
    const pad = (hi - lo) * 0.06;
    lo -= pad; hi += pad;
    const sy = (v) => plotBottom - (v - lo) / (hi - lo) * (plotBottom - plotTop);
    S.yOf = sy;
    ctx.fillStyle = '#1f3b63'; ctx.strokeStyle = '#1f3b63';
    if (dense) {
      for (const [x, mn, mx] of cols) {
        const y0 = sy(mx), y1 = sy(mn);
        ctx.fillRect(x, y0, 1, Math.max(1, y1 - y0));
      }
    } else {
      ctx.lineWidth = 1.2; ctx.beginPath();
      cols.forEach(([x, v], k) => (k ? ctx.lineTo(x, sy(v)) : ctx.moveTo(x, sy(v))));
      ctx.stroke();
      if (spp < 0.15) for (const [x, v] of cols) ctx.fillRect(x - 1.5, sy(v) - 1.5, 3, 3);  // each sample
    }
    S.drawn.envelope = { columns: cols.length, from: first, to: last, lo: lo, hi: hi };

    // Beats: markers on the top band and at the peak; reference lane below the plot.
    let beatsComplete = true;
    if (beatsWanted()) {
      requestBeats();
      beatsComplete = haveBeats();
      if (S.beats) drawBeats(ctx, sx, sy, W, plotTop, plotBottom, refLane);
    } else {
      // Too many beats to draw one by one: mark where the listed outliers are.
      ctx.fillStyle = '#d62728';
      for (const o of S.outliers) {
        if (o.r_peak < S.t0 || o.r_peak >= S.t1) continue;
        ctx.fillRect(Math.round(sx(o.r_peak)), 2, 1.5, TOP - 6);
      }
    }
    return complete && beatsComplete;
  }

  function drawBeats(ctx, sx, sy, W, plotTop, plotBottom, refLane) {
    const b = S.beats.beats, ref = S.beats.reference, dpr = window.devicePixelRatio || 1;
    const peaksVisible = (S.t1 - S.t0) / W < 8;  // sample values are near their own pixel: mark the peak itself
    for (let i = 0; i < b.r_peak.length; ++i) {
      const r = b.r_peak[i];
      if (r < S.t0 || r >= S.t1) continue;
      const x = sx(r), colour = beatColour(i);
      const fp = b.matched !== undefined && !b.matched[i];
      if (fp) { ctx.fillStyle = 'rgba(255,140,0,0.18)'; ctx.fillRect(x - 4, plotTop, 8, plotBottom - plotTop); }
      ctx.fillStyle = colour;
      const size = b.outlier[i] ? 7 : 5;
      ctx.beginPath(); ctx.moveTo(x - size, 3); ctx.lineTo(x + size, 3); ctx.lineTo(x, 3 + 1.6 * size); ctx.closePath(); ctx.fill();
      let y = null;
      if (peaksVisible) {
        const v = bin(0, r);
        if (v) {
          y = sy(v[0]);
          ctx.beginPath(); ctx.arc(x, y, 4, 0, 2 * Math.PI); ctx.fill();
          ctx.strokeStyle = '#fff'; ctx.lineWidth = 1; ctx.stroke();
        }
      }
      if (fp) { ctx.fillStyle = '#c05600'; ctx.font = 'bold 10px system-ui'; ctx.textAlign = 'left'; ctx.fillText('FP', x + 6, plotTop + 2); }
      S.drawn.markers.push({ index: b.index + i, sample: r, x: x * dpr, y: y === null ? null : y * dpr, colour: colour, fp: fp });
    }
    if (!ref) return;
    const y0 = plotBottom + 2;
    ctx.font = '10px system-ui'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    for (let i = 0; i < ref.sample.length; ++i) {
      const r = ref.sample[i];
      if (r < S.t0 || r >= S.t1) continue;
      const x = sx(r), miss = !ref.matched[i];
      if (miss) {
        ctx.fillStyle = 'rgba(214,39,40,0.15)'; ctx.fillRect(x - 4, plotTop, 8, plotBottom - plotTop);
        ctx.fillStyle = '#d62728'; ctx.fillRect(x - 7, y0, 14, REF_LANE - 4);
        ctx.fillStyle = '#fff'; ctx.fillText('FN', x, y0 + 2);
      } else {
        ctx.fillStyle = '#666'; ctx.fillRect(x - 0.5, y0, 1, 5);
        if ((S.t1 - S.t0) / S.meta.fs < 30) ctx.fillText(ref.symbol[i], x, y0 + 5);
      }
      S.drawn.reference.push({ sample: r, x: x * (window.devicePixelRatio || 1), miss: miss, symbol: ref.symbol[i] });
    }
  }

  function drawHr() {
    const [ctx, W, H] = sizeCanvas(hrCanvas);
    ctx.clearRect(0, 0, W, H);
    requestHr();
    const hr = S.hr;
    ctx.fillStyle = '#555'; ctx.font = '11px system-ui'; ctx.textAlign = 'left'; ctx.textBaseline = 'top';
    ctx.fillText('heart rate, bpm', 4, 2);
    if (!hr) return false;
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < hr.bins; ++k) if (hr.mean[k] !== null) { lo = Math.min(lo, hr.min[k]); hi = Math.max(hi, hr.max[k]); }
    if (lo === Infinity) return true;
    lo = Math.max(0, Math.floor(lo / 10) * 10 - 10); hi = Math.ceil(hi / 10) * 10 + 10;
    const top = 16, bottom = H - 4, sy = (v) => bottom - (v - lo) / (hi - lo) * (bottom - top);
    shadeAf(ctx, W, top, bottom);
    const xOf = (s) => (s - S.t0) / (S.t1 - S.t0) * W, bw = (hr.to - hr.from) / hr.bins;
    ctx.fillStyle = '#f2b8b5';
    for (let k = 0; k < hr.bins; ++k) {
      if (hr.mean[k] === null) continue;
      const x0 = xOf(hr.from + k * bw), x1 = xOf(hr.from + (k + 1) * bw);
      ctx.fillRect(x0, sy(hr.max[k]), Math.max(1, x1 - x0), Math.max(1, sy(hr.min[k]) - sy(hr.max[k])));
    }
    // The mean joins the bins that hold beats (zoomed in, most bins hold none); a dot per bin
    // while they are few enough to see.
    ctx.strokeStyle = '#b71c1c'; ctx.fillStyle = '#b71c1c'; ctx.lineWidth = 1.2; ctx.beginPath();
    const points = [];
    for (let k = 0; k < hr.bins; ++k) {
      if (hr.mean[k] !== null) points.push([xOf(hr.from + (k + 0.5) * bw), sy(hr.mean[k])]);
    }
    points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.stroke();
    if (points.length < 300) for (const [x, y] of points) { ctx.beginPath(); ctx.arc(x, y, 2.5, 0, 2 * Math.PI); ctx.fill(); }
    ctx.fillStyle = '#555'; ctx.textAlign = 'right';
    ctx.fillText(String(hi), W - 4, top - 12); ctx.fillText(String(lo), W - 4, bottom - 12);
    return hr.from === Math.max(0, Math.floor(S.t0)) && hr.to === Math.max(hr.from + 1, Math.ceil(S.t1));
  }

  function draw() {
    if (!S.meta) return;
    const sigDone = drawSignal(), hrDone = drawHr();
    ++S.draws;
    const fs = S.meta.fs;
    $('status').textContent = clock(S.t0 / fs, 3) + ' \u2013 ' + clock(S.t1 / fs, 3) + '  (' +
      ((S.t1 - S.t0) / fs).toFixed((S.t1 - S.t0) / fs < 10 ? 3 : 1) + ' s, level ' + S.drawn.level + ')';
    if (sigDone && hrDone && S.inflight.size === 0) {
      const now = performance.now();
      if (!S.settled) {
        S.lastStepMs = now - S.stepStart;
        // performance.now() counts from the navigation's start: this is the time from requesting
        // the page to the first complete picture of the whole recording.
        if (S.firstPaintMs === null) S.firstPaintMs = now;
      }
      S.settled = true;
    }
  }

  // ---- outliers
  function goToOutlier(k) {
    if (!S.outliers.length) return;
    k = Math.max(0, Math.min(S.outliers.length - 1, k));
    S.current = k;
    const rows = $('outlier-rows').children;
    for (let i = 0; i < rows.length; ++i) rows[i].classList.toggle('current', i === k);
    rows[k].scrollIntoView({ block: 'nearest' });
    S.centreOn(S.outliers[k].r_peak, OUTLIER_SPAN_S * S.meta.fs);
  }
  S.goToOutlier = goToOutlier;
  function fillOutliers() {
    const body = $('outlier-rows'), fs = S.meta.fs;
    S.outliers.forEach((o, k) => {
      const tr = document.createElement('tr');
      tr.dataset.rank = o.rank;
      tr.innerHTML = '<td>' + o.rank + '</td><td>' + clock(o.r_peak / fs, 1) + '</td><td>' + o.score.toFixed(2) + '</td>';
      tr.addEventListener('click', () => goToOutlier(k));
      body.appendChild(tr);
    });
  }

  // ---- input
  function installInput() {
    sigCanvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const rect = sigCanvas.getBoundingClientRect();
      const anchor = S.t0 + (e.clientX - rect.left) / rect.width * (S.t1 - S.t0);
      zoom(e.deltaY > 0 ? 1.25 : 0.8, anchor);
    }, { passive: false });
    let drag = null;
    sigCanvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, t0: S.t0, t1: S.t1 }; sigCanvas.style.cursor = 'grabbing'; });
    window.addEventListener('mousemove', (e) => {
      if (!drag) return;
      const d = (e.clientX - drag.x) / sigCanvas.clientWidth * (drag.t1 - drag.t0);
      setView(drag.t0 - d, drag.t1 - d);
    });
    window.addEventListener('mouseup', () => { drag = null; sigCanvas.style.cursor = 'grab'; });
    window.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      switch (e.key) {
        case 'n': case 'j': goToOutlier(S.current + 1); break;
        case 'p': case 'k': goToOutlier(S.current - 1); break;
        case '+': case '=': zoom(0.5); break;
        case '-': case '_': zoom(2); break;
        case 'ArrowLeft': pan(-0.25); break;
        case 'ArrowRight': pan(0.25); break;
        case '0': case 'Home': setView(0, S.meta.samples); break;
        default: return;
      }
      e.preventDefault();
    });
    window.addEventListener('resize', requestDraw);
  }

  function legend() {
    const m = S.meta, parts = [];
    if (m.has_class) for (const c in CLASS_COLOURS) parts.push('<span><i style="background:' + CLASS_COLOURS[c] + '"></i>' + c + '</span>');
    else parts.push('<span><i style="background:' + scoreColour(m.score_p50) + '"></i>typical score</span><span><i style="background:' +
      scoreColour(m.outlier_threshold) + '"></i>outlier score</span>');
    if ((m.af_episodes || []).length) parts.push('<span><i style="background:' + AF_SHADE + '"></i>atrial fibrillation (' + m.af_episodes.length + ' episodes)</span>');
    if (m.has_reference) parts.push('<span><i style="background:#d62728"></i>FN: reference beat missed</span><span><i style="background:#ff8c00"></i>FP: detection without a reference beat</span>');
    $('legend').innerHTML = parts.join('');
  }

  Promise.all([fetchJson('/api/meta'), fetchJson('/api/outliers')]).then(([meta, outliers]) => {
    S.meta = meta;
    S.outliers = outliers;
    const name = meta.recording.split('/').pop();
    document.title = 'ecgpipe view: ' + name;
    $('title').textContent = name + ' \u00b7 ' + clock(meta.samples / meta.fs, 0) + ' at ' + meta.fs + ' Hz';
    let counts = meta.beats + ' beats';
    if (meta.reference) counts += ' \u00b7 reference: TP ' + meta.reference.tp + ', FN ' + meta.reference.fn + ', FP ' + meta.reference.fp;
    $('counts').textContent = counts;
    legend();
    fillOutliers();
    installInput();
    setView(0, meta.samples);
  }).catch((e) => {
    $('error').hidden = false;
    $('error').textContent = 'ecgpipe view: ' + e.message;
  });
})();
