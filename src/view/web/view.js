// ecgpipe view: draws a recording from the server's min/max pyramid (tiles of the visible range
// only), the detected beats (coloured by class, else by score), the reference beats with misses
// and false positives, a heart-rate lane and the outlier list; zoomed to seconds, the ECG grid and
// an mV scale. No libraries: canvas 2D only.
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
  // One colour per meaning (issue 27: V and missed beats shared one red, S and false positives one
  // orange), from Okabe and Ito's palette for colour-blind readers where it has one: the classes
  // on the beat markers (a triangle above the trace); the reference matching's misses (FN, an
  // orange square in the reference lane) and false positives (FP, a green diamond) in colours and
  // shapes that no class uses; AF a pale yellow shade; the grid pale red, as ECG paper.
  const CLASS_COLOURS = { N: '#3a3a3a', S: '#0072b2', V: '#d55e00', F: '#cc79a7', Q: '#8c564b' };
  const CLASS_NAMES = { N: 'normal', S: 'supraventricular', V: 'ventricular', F: 'fusion', Q: 'unclassifiable' };
  const FN_COLOUR = '#e69f00', FN_SHADE = 'rgba(230,159,0,0.16)';
  const FP_COLOUR = '#009e73', FP_SHADE = 'rgba(0,158,115,0.13)';
  const NO_SCORE_COLOUR = '#777777';  // no class and no model score
  // ECG paper: 25 mm/s and 10 mm/mV; 1 mm boxes (40 ms x 0.1 mV), 5 mm boxes (0.2 s x 0.5 mV).
  const GRID_SPAN_S = 20;  // the grid and the mV scale when at most this many seconds are visible
  const PAPER_MM_PER_S = 25, PAPER_MM_PER_MV = 10;
  const GRID_MINOR = '#f7d4d4', GRID_MAJOR = '#e8a3a3';

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

  // A moment in the recording as the page shows it: with its start (meta.start_of_day_s, from the
  // header's date and time) the clock's time of day, HH:MM:SS wrapping at midnight, as a Holter
  // scanner shows it beside the patient's diary; without one the elapsed h:mm:ss.
  function startOfDay() {
    return S.meta && typeof S.meta.start_of_day_s === 'number' ? S.meta.start_of_day_s : null;
  }
  function timeAt(sec, decimals) {
    const start = startOfDay();
    if (start === null) return clock(sec, decimals);
    const unit = Math.pow(10, decimals), day = 86400;
    const t = ((Math.round((start + sec) * unit) / unit) % day + day) % day;
    const h = Math.floor(t / 3600);
    return String(h).padStart(2, '0') + clock(t - 3600 * h, decimals).slice(1);  // clock's "0:mm:ss"
  }
  S.timeAt = timeAt;
  // ' (day N)' for a clock time past the first midnight (a 48-h recording has each time twice).
  function dayNote(sec) {
    const start = startOfDay();
    const day = start === null ? 0 : Math.floor((start + sec) / 86400);
    return day > 0 ? ' (day ' + (day + 1) + ')' : '';
  }

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
    return b.score[i] === null || !S.meta.has_model ? NO_SCORE_COLOUR : scoreColour(b.score[i]);
  }
  S.colours = { classes: CLASS_COLOURS, fn: FN_COLOUR, fp: FP_COLOUR, noScore: NO_SCORE_COLOUR };
  // AF episodes (rhythm.csv) in view, shaded from y0 to y1 under what is drawn next.
  const AF_SHADE = 'rgba(240,228,66,0.30)';
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
    // Ticks on round times of the clock the labels read (09:00, 09:10, ... from a start at 08:53:17).
    const offset = startOfDay() || 0, labels = [];
    for (let c = Math.ceil((S.t0 / fs + offset) / step) * step; c - offset <= S.t1 / fs; c += step) {
      const t = c - offset;
      if (t < 0) continue;
      const x = Math.round(x0 + (t * fs - S.t0) / (S.t1 - S.t0) * (x1 - x0)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1); ctx.stroke();
      if (withLabels) {
        labels.push(timeAt(t, decimals));
        ctx.fillText(labels[labels.length - 1], x, y1 + 4);
      }
    }
    if (withLabels) S.drawn.ticks = { step: step, labels: labels };  // for the browser test
  }

  // Signal units per mV: the header's (WFDB, EDF); a CSV's unknown units are taken as mV, as
  // report.html's strips take them, and the scale says so.
  function unitsPerMv() { return S.meta.units_per_mv || 1; }
  function gridWanted() { return (S.t1 - S.t0) / S.meta.fs <= GRID_SPAN_S; }
  // The ECG grid over the plot: lines every 40 ms and 0.1 mV, bolder every 0.2 s and 0.5 mV; the
  // minor lines only where they are at least 3 px apart, no grid where even the major ones would
  // be closer than 4 px (a CSV in ADC units taken as mV). Returns what was drawn, or null.
  function drawGrid(ctx, W, top, bottom, lo, hi) {
    const fs = S.meta.fs, u = unitsPerMv(), span = S.t1 - S.t0;
    const pxPerS = W / (span / fs), pxPerUnit = (bottom - top) / (hi - lo);
    const minorX = 0.04 * pxPerS, minorY = 0.1 * u * pxPerUnit;
    if (5 * Math.min(minorX, minorY) < 4) return null;
    const minor = Math.min(minorX, minorY) >= 3;
    ctx.save();
    ctx.beginPath(); ctx.rect(0, top, W, bottom - top); ctx.clip();
    ctx.lineWidth = 1;
    for (const major of minor ? [false, true] : [true]) {
      ctx.strokeStyle = major ? GRID_MAJOR : GRID_MINOR;
      ctx.beginPath();
      const stepS = major ? 0.2 : 0.04, stepU = (major ? 0.5 : 0.1) * u;
      for (let k = Math.ceil(S.t0 / fs / stepS - 1e-9); k <= Math.floor(S.t1 / fs / stepS + 1e-9); ++k) {
        if (!major && k % 5 === 0) continue;  // a major line is drawn there
        const x = Math.round((k * stepS * fs - S.t0) / span * W) + 0.5;
        ctx.moveTo(x, top); ctx.lineTo(x, bottom);
      }
      for (let j = Math.ceil(lo / stepU - 1e-9); j <= Math.floor(hi / stepU + 1e-9); ++j) {
        if (!major && j % 5 === 0) continue;
        const y = Math.round(bottom - (j * stepU - lo) * pxPerUnit) + 0.5;
        ctx.moveTo(0, y); ctx.lineTo(W, y);
      }
      ctx.stroke();
    }
    ctx.restore();
    return { minor_x_px: minorX, minor_y_px: minorY, minor: minor };
  }
  // A vertical mV scale bar at the plot's lower left: 1 mV where it fits (else 0.5, 2, 0.2, 5, ...
  // whichever is 15 px to 60 % of the plot), labelled; the units said when they are unknown.
  function drawScale(ctx, top, bottom, lo, hi) {
    const pxPerMv = (bottom - top) / (hi - lo) * unitsPerMv();
    const mv = [1, 0.5, 2, 0.2, 5, 0.1, 10, 20, 50, 100].find((v) => v * pxPerMv >= 15 && v * pxPerMv <= 0.6 * (bottom - top));
    if (mv === undefined) return null;
    const x = 10, y0 = bottom - 8, y1 = y0 - mv * pxPerMv;
    ctx.strokeStyle = '#000'; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(x - 4, y0); ctx.lineTo(x + 4, y0); ctx.moveTo(x, y0); ctx.lineTo(x, y1); ctx.moveTo(x - 4, y1); ctx.lineTo(x + 4, y1); ctx.stroke();
    ctx.fillStyle = '#000'; ctx.font = 'bold 11px system-ui, sans-serif'; ctx.textAlign = 'left'; ctx.textBaseline = 'middle';
    ctx.fillText(mv + ' mV' + (S.meta.units_per_mv ? '' : ' (units unknown: taken as mV)'), x + 7, (y0 + y1) / 2);
    return { mv: mv, px: mv * pxPerMv };
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
    S.drawn = { level: level, envelope: null, markers: [], reference: [], grid: null, scale: null, ticks: null };
    timeTicks(ctx, W, 0, W, plotTop, plotBottom + refLane, true);
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
    // Zoomed to seconds: ECG paper's proportions (25 mm/s, 10 mm/mV, so the boxes are square)
    // where the visible signal fits the plot at that gain, centred; else the fitted range.
    let grid = null, scale = null, paper = false;
    if (gridWanted()) {
      const h = plotBottom - plotTop, paperPxPerUnit = W / ((S.t1 - S.t0) / m.fs) * PAPER_MM_PER_MV / PAPER_MM_PER_S / unitsPerMv();
      paper = (hi - lo) * paperPxPerUnit <= h;
      if (paper) {
        const c = (hi + lo) / 2, half = h / 2 / paperPxPerUnit;
        lo = c - half; hi = c + half;
      }
      grid = drawGrid(ctx, W, plotTop, plotBottom, lo, hi);
      if (grid) grid.paper = paper;
    }
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
    if (grid) scale = drawScale(ctx, plotTop, plotBottom, lo, hi);
    S.drawn.grid = grid;
    S.drawn.scale = scale;

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
      if (fp) { ctx.fillStyle = FP_SHADE; ctx.fillRect(x - 4, plotTop, 8, plotBottom - plotTop); }
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
      if (fp) {  // a green diamond under the marker, and the letters
        const yd = plotTop + 8;
        ctx.fillStyle = FP_COLOUR;
        ctx.beginPath(); ctx.moveTo(x, yd - 6); ctx.lineTo(x + 6, yd); ctx.lineTo(x, yd + 6); ctx.lineTo(x - 6, yd); ctx.closePath(); ctx.fill();
        ctx.font = 'bold 10px system-ui'; ctx.textAlign = 'left'; ctx.textBaseline = 'middle'; ctx.fillText('FP', x + 8, yd);
      }
      S.drawn.markers.push({ index: b.index + i, sample: r, x: x * dpr, y: y === null ? null : y * dpr, colour: colour, fp: fp });
    }
    if (!ref) return;
    const y0 = plotBottom + 2;
    ctx.font = '10px system-ui'; ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    for (let i = 0; i < ref.sample.length; ++i) {
      const r = ref.sample[i];
      if (r < S.t0 || r >= S.t1) continue;
      const x = sx(r), miss = !ref.matched[i];
      if (miss) {  // an orange square in the lane, black letters
        ctx.fillStyle = FN_SHADE; ctx.fillRect(x - 4, plotTop, 8, plotBottom - plotTop);
        ctx.fillStyle = FN_COLOUR; ctx.fillRect(x - 8, y0, 16, REF_LANE - 4);
        ctx.fillStyle = '#000'; ctx.fillText('FN', x, y0 + 2);
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
    $('status').textContent = timeAt(S.t0 / fs, 3) + dayNote(S.t0 / fs) + ' \u2013 ' + timeAt(S.t1 / fs, 3) +
      dayNote(S.t1 / fs) + '  (' +
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
      const cls = CLASS_COLOURS[o.class] ? o.class : '-';  // one letter of ours, never the file's text
      tr.innerHTML = '<td>' + o.rank + '</td><td>' + timeAt(o.r_peak / fs, 1) + '</td><td class="cls"' +
        (CLASS_COLOURS[cls] ? ' style="color:' + CLASS_COLOURS[cls] + '" title="' + CLASS_NAMES[cls] + '"' : '') + '>' + cls +
        '</td><td>' + o.score.toFixed(2) + '</td>';
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

  // The legend: each meaning with its colour and shape, as drawn (every text here is ours).
  function legend() {
    const m = S.meta, parts = [];
    const item = (shape, colour, text) => parts.push('<span><b class="' + shape + '" style="color:' + colour + '"></b>' + text + '</span>');
    if (m.has_class) for (const c in CLASS_COLOURS) item('tri', CLASS_COLOURS[c], c + ' ' + CLASS_NAMES[c]);
    else if (m.has_model) { item('tri', scoreColour(m.score_p50), 'typical score'); item('tri', scoreColour(m.outlier_threshold), 'outlier score'); }
    else item('tri', NO_SCORE_COLOUR, 'beat');
    if (m.has_model) parts.push('<span>larger marker: outlier</span>');
    if ((m.af_episodes || []).length) parts.push('<span><i style="background:' + AF_SHADE + '"></i>atrial fibrillation (' + m.af_episodes.length + ' episodes)</span>');
    if (m.has_reference) {
      item('sq', FN_COLOUR, 'FN: reference beat missed');
      item('dia', FP_COLOUR, 'FP: detection without a reference beat');
    }
    parts.push('<span><i class="grid"></i>at \u2264 ' + GRID_SPAN_S + ' s: grid 1 mm = 40 ms \u00d7 0.1 mV, 5 mm = 0.2 s \u00d7 0.5 mV' +
      (m.units_per_mv ? '' : ' (units unknown: taken as mV)') + '</span>');
    $('legend').innerHTML = parts.join('');
  }

  Promise.all([fetchJson('/api/meta'), fetchJson('/api/outliers')]).then(([meta, outliers]) => {
    S.meta = meta;
    S.outliers = outliers;
    const name = meta.recording.split('/').pop();
    document.title = 'ecgpipe view: ' + name;
    $('title').textContent = name + ' \u00b7 ' + clock(meta.samples / meta.fs, 0) + ' at ' + meta.fs + ' Hz' +
      (startOfDay() === null ? ' \u00b7 times elapsed' : ' \u00b7 started ' + meta.start + ' \u00b7 clock times');
    let counts = meta.beats + ' beats';
    if (!meta.has_model) {
      counts += ' \u00b7 no model: analysis only';
      $('outliers-title').textContent = 'Outliers: none (no model: analysis only)';
    }
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
