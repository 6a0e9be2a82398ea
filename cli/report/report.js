// The page of an appell report: the header, a three.js animation of the run and uPlot
// charts of its energy, constraint violations, constraint forces and body positions.
// Data: the JSON block #appell-data (cli/report_html.cpp); three.js: the text block
// #three-module, imported as a module from a Blob URL (the file has no network).
// window.appellReport tells the browser tests what was drawn (geometry: the shapes drawn
// per kind, the inertia boxes shown, the meshes' triangles).
(function () {
  'use strict';
  const state = (window.appellReport = { ready: false, plots: 0, expectedPlots: 0 });
  const PALETTE = ['#3b6fd8', '#d8553b', '#2f9e6a', '#a35bd1', '#d19a1f', '#1fa2b8', '#c2417e',
    '#6f7d1c', '#7a4f2b', '#4b5563'];
  const $ = (id) => document.getElementById(id);

  function header(meta, series) {
    document.title = meta.scene + ' — appell report';
    $('title').textContent = meta.scene;
    const facts = [
      ['scene file', meta.file], ['formulation', meta.formulation], ['integrator', meta.integrator],
      ['bodies', meta.bodies], ['constraints', meta.constraints], ['coordinates', meta.coordinates],
      ['rank', meta.rank === null ? 'n/a' : meta.rank], ['DoF', meta.dof === null ? 'n/a' : meta.dof],
      ['simulated', series.t[series.t.length - 1].toPrecision(4) + ' s'],
      ['rows', series.rows],
      ['run time', meta.wall_seconds === null ? 'unknown' : meta.wall_seconds.toPrecision(3) + ' s'],
    ];
    for (const [k, v] of facts) {
      const div = document.createElement('div');
      const dt = document.createElement('dt');
      const dd = document.createElement('dd');
      dt.textContent = k;
      dd.textContent = String(v);
      div.append(dt, dd);
      $('facts').append(div);
    }
    if (meta.status) {
      $('status').hidden = false;
      $('status').textContent = 'the run failed: ' + meta.status;
    }
  }

  // ---- the animation ----------------------------------------------------------------
  function pose(THREE, series, b, i) {
    const p = series.pose[b];
    return {
      x: new THREE.Vector3(p[7 * i], p[7 * i + 1], p[7 * i + 2]),
      q: new THREE.Quaternion(p[7 * i + 4], p[7 * i + 5], p[7 * i + 6], p[7 * i + 3]),
    };
  }

  // a body's bounding radius about its centre of mass
  function extent(shape, scale) {
    const s = shape.size || [];
    if (shape.kind === 'box') return 0.5 * Math.hypot(s[0], s[1], s[2]);
    if (shape.kind === 'sphere') return s[0];
    if (shape.kind === 'cylinder') return Math.hypot(s[0], 0.5 * s[1]);
    return 0.03 * scale;
  }

  // ---- the bodies' geometry (data.geometry, cli/report_geometry.cpp) ------------------
  // Each body is drawn by its visual shapes when it has some, else by its collision
  // shapes, else by its inertia box; the "bodies" menu shows the collision shapes or the
  // inertia boxes instead.  World shapes are drawn fixed; a world plane is the ground.
  function decode(text, Type) {
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    return new Type(bytes.buffer);
  }

  function meshGeometries(THREE, geometry) {
    return geometry.meshes.map((m) => {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(decode(m.positions, Float32Array), 3));
      if (m.triangles > 0) {
        g.setIndex(new THREE.BufferAttribute(decode(m.indices, Uint32Array), 1));
        g.computeVertexNormals();
      }
      return g;
    });
  }

  // one shape in its body's frame (or the world's); a plane is a square of side `span`
  // centred at `centre` (world coordinates, for a world plane)
  function shapeObject(THREE, sh, meshes, color, span, centre) {
    const material = new THREE.MeshStandardMaterial({ color, roughness: 0.55, metalness: 0.1 });
    const edges = (g) => new THREE.LineSegments(new THREE.EdgesGeometry(g, 25),
      new THREE.LineBasicMaterial({ color: 0x1d2330, transparent: true, opacity: 0.3 }));
    const object = new THREE.Group();
    object.position.fromArray(sh.p);
    object.quaternion.set(sh.q[1], sh.q[2], sh.q[3], sh.q[0]);
    let geometry = null;
    if (sh.kind === 'sphere') geometry = new THREE.SphereGeometry(sh.radius, 32, 16);
    else if (sh.kind === 'box') geometry = new THREE.BoxGeometry(sh.size[0], sh.size[1], sh.size[2]);
    else if (sh.kind === 'cylinder') {
      geometry = new THREE.CylinderGeometry(sh.radius, sh.radius, sh.length, 40);
      geometry.rotateX(Math.PI / 2); // three's run along y, ours along z
    } else if (sh.kind === 'capsule') {
      geometry = new THREE.CapsuleGeometry(sh.radius, sh.length, 8, 32);
      geometry.rotateX(Math.PI / 2);
    } else if (sh.kind !== 'mesh' && sh.kind !== 'plane' && sh.r > 0) {
      // a shape type this page has no drawing of: the sphere of its reach, sh.r
      geometry = new THREE.SphereGeometry(sh.r, 16, 8);
    }
    if (geometry) {
      const mesh = new THREE.Mesh(geometry, material);
      mesh.add(edges(geometry));
      object.add(mesh);
    } else if (sh.kind === 'mesh') {
      const g = meshes[sh.mesh];
      // faceted: a mesh's shared vertices would round off its edges (CAD parts)
      if (g.index !== null) object.add(new THREE.Mesh(g, new THREE.MeshStandardMaterial({
        color, roughness: 0.55, metalness: 0.1, flatShading: true })));
      else object.add(new THREE.Points(g, new THREE.PointsMaterial({ color, size: 3, sizeAttenuation: false })));
    } else if (sh.kind === 'plane') {
      // the square in the plane z = 0 of the shape frame, around the scene's centre
      object.updateMatrixWorld(); // a world shape: its own pose is its world pose
      const local = centre ? object.worldToLocal(centre.clone()) : new THREE.Vector3();
      const square = new THREE.Mesh(new THREE.PlaneGeometry(span, span),
        new THREE.MeshStandardMaterial({ color: 0xe9edf3, roughness: 0.9, side: THREE.DoubleSide,
          transparent: true, opacity: 0.85 }));
      square.position.set(local.x, local.y, -1e-4 * span); // below the grid
      const grid = new THREE.GridHelper(span, 20, 0x9aa6bf, 0xd5d9e0);
      grid.rotateX(Math.PI / 2); // three's grid lies in xz, the plane is xy
      grid.position.set(local.x, local.y, 0);
      object.add(square, grid);
    }
    object.userData.kind = sh.kind;
    return object;
  }

  // every shape's object, grouped by body (index + 1; 0 is the world) and by role
  function bodyGeometry(THREE, data, colorOf, span, centre) {
    const geometry = data.geometry || { shapes: [], meshes: [] };
    const meshes = meshGeometries(THREE, geometry);
    const n = data.scene.bodies.length;
    const groups = Array.from({ length: n + 1 }, () => ({ visual: [], collision: [] }));
    for (const sh of geometry.shapes) {
      const b = sh.body < 0 ? -1 : sh.body;
      const color = b < 0 ? '#b7bfcc' : colorOf(b);
      const object = shapeObject(THREE, sh, meshes, color, span, b < 0 ? centre : null);
      groups[b + 1][sh.visual ? 'visual' : 'collision'].push(object);
    }
    return groups;
  }

  // each body's bounding radius about its centre of mass over its shapes (planes aside)
  function shapeExtent(data, b) {
    let r = 0;
    for (const sh of (data.geometry && data.geometry.shapes) || []) {
      if (sh.body !== b || sh.kind === 'plane') continue;
      r = Math.max(r, Math.hypot(sh.p[0], sh.p[1], sh.p[2]) + sh.r);
    }
    return r;
  }

  function bodyMesh(THREE, body, color, scale) {
    const sh = body.shape;
    let geometry;
    if (sh.kind === 'box') geometry = new THREE.BoxGeometry(sh.size[0], sh.size[1], sh.size[2]);
    else if (sh.kind === 'cylinder') {
      geometry = new THREE.CylinderGeometry(sh.size[0], sh.size[0], sh.size[1], 40);
      geometry.rotateX(Math.PI / 2); // three's cylinders run along y, ours along body z
    } else geometry = new THREE.SphereGeometry(sh.kind === 'sphere' ? sh.size[0] : 0.03 * scale, 32, 16);
    const material = new THREE.MeshStandardMaterial({ color, roughness: 0.55, metalness: 0.1 });
    const mesh = new THREE.Mesh(geometry, material);
    const group = new THREE.Group();
    if (sh.q) mesh.quaternion.set(sh.q[1], sh.q[2], sh.q[3], sh.q[0]);
    group.add(mesh);
    group.userData.inertia = mesh; // hidden when the body's shapes are drawn
    if (body.rigid) {
      mesh.add(new THREE.LineSegments(new THREE.EdgesGeometry(geometry, 25),
        new THREE.LineBasicMaterial({ color: 0x1d2330, transparent: true, opacity: 0.35 })));
      group.add(new THREE.AxesHelper(1.2 * extent(sh, scale))); // shows the body's turning
    }
    return group;
  }

  // bounds of every body over the run (its centre of mass ± its bounding radius)
  function bounds(THREE, data, scale0) {
    const box = new THREE.Box3();
    const s = data.series;
    let low = Infinity;
    const up = new THREE.Vector3().fromArray(data.scene.up);
    data.scene.bodies.forEach((body, b) => {
      const r = Math.max(extent(body.shape, scale0), shapeExtent(data, b));
      for (let i = 0; i < s.t.length; ++i) {
        const x = pose(THREE, s, b, i).x;
        box.expandByPoint(x.clone().addScalar(r)).expandByPoint(x.clone().addScalar(-r));
        low = Math.min(low, x.dot(up) - r);
      }
    });
    box.expandByPoint(new THREE.Vector3(0, 0, 0));
    return { box, low };
  }

  function lineBetween(THREE, color) {
    const g = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]);
    return new THREE.Line(g, new THREE.LineBasicMaterial({ color }));
  }

  // joints, rods, springs and markers: points fixed in bodies (or in the world)
  function links(THREE, data, scene3, scale) {
    const s = data.series;
    const out = [];
    const dot = new THREE.SphereGeometry(0.012 * scale, 16, 8);
    for (const link of data.scene.links) {
      if (link.style === 'none') continue;
      const color = link.style === 'spring' ? 0x2f9e6a : link.style === 'joint' ? 0xd19a1f : 0x1d2330;
      // a point's body coordinates (world coordinates for the world)
      const pts = link.points.map((pt) => ({
        body: pt.body < 0 ? -1 : pt.body, local: new THREE.Vector3().fromArray(pt.local),
      }));
      const item = { link, pts, markers: [], lines: [] };
      for (let k = 0; k < pts.length; ++k) {
        const m = new THREE.Mesh(dot, new THREE.MeshStandardMaterial({ color }));
        item.markers.push(m);
        scene3.add(m);
      }
      const nlines = link.style === 'joint' ? pts.length : pts.length === 2 ? 1 : 0;
      for (let k = 0; k < nlines; ++k) {
        const l = lineBetween(THREE, color);
        item.lines.push(l);
        scene3.add(l);
      }
      out.push(item);
    }
    return out;
  }

  function placeLinks(THREE, data, items, i) {
    const s = data.series;
    const where = (pt) => {
      if (pt.body < 0) return { at: pt.local.clone(), com: null };
      const p = pose(THREE, s, pt.body, i);
      return { at: pt.local.clone().applyQuaternion(p.q).add(p.x), com: p.x };
    };
    for (const item of items) {
      const w = item.pts.map(where);
      w.forEach((v, k) => item.markers[k].position.copy(v.at));
      if (item.link.style === 'joint') {
        // a stick from each body's centre of mass to its joint
        w.forEach((v, k) => item.lines[k].geometry.setFromPoints([v.com || v.at, v.at]));
      } else if (item.lines.length) {
        item.lines[0].geometry.setFromPoints([w[0].at, w[1].at]);
      }
    }
  }

  // contact points and their forces (moreau runs): a dot per point and an arrow of the
  // force on the body that is not the world, its length relative to the run's typical
  // force (the 90th percentile: an impact's spike does not flatten the resting forces)
  function contactLayer(THREE, data, scene3, scale) {
    const rows = data.series.contacts;
    if (!rows) return { place() {} };
    const mags = [];
    for (const r of rows) for (let k = 0; k + 5 < r.length; k += 6) mags.push(Math.hypot(r[k + 3], r[k + 4], r[k + 5]));
    mags.sort((a, b) => a - b);
    const typical = mags.length ? mags[Math.floor(0.9 * (mags.length - 1))] || mags[mags.length - 1] : 1;
    const unit = 0.15 * scale / (typical > 0 ? typical : 1);
    const dot = new THREE.SphereGeometry(0.01 * scale, 12, 6);
    const color = 0xc2255c;
    const pool = [];
    const item = (k) => {
      while (pool.length <= k) {
        const marker = new THREE.Mesh(dot, new THREE.MeshBasicMaterial({ color }));
        const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, color);
        // drawn over the bodies: the points lie on their surfaces, the arrows inside them
        for (const m of [marker.material, arrow.line.material, arrow.cone.material]) m.depthTest = false;
        marker.renderOrder = arrow.line.renderOrder = arrow.cone.renderOrder = 1;
        scene3.add(marker);
        scene3.add(arrow);
        pool.push({ marker, arrow });
      }
      return pool[k];
    };
    function place(i) {
      const r = rows[i] || [];
      const n = Math.floor(r.length / 6);
      for (let k = 0; k < n; ++k) {
        const { marker, arrow } = item(k);
        const at = new THREE.Vector3(r[6 * k], r[6 * k + 1], r[6 * k + 2]);
        const f = new THREE.Vector3(r[6 * k + 3], r[6 * k + 4], r[6 * k + 5]);
        const len = Math.min(f.length() * unit, 0.5 * scale);
        marker.position.copy(at);
        marker.visible = true;
        arrow.visible = len > 1e-6 * scale;
        if (arrow.visible) {
          arrow.position.copy(at);
          arrow.setDirection(f.normalize());
          arrow.setLength(len, Math.min(0.3 * len, 0.04 * scale), Math.min(0.15 * len, 0.02 * scale));
        }
      }
      for (let k = n; k < pool.length; ++k) pool[k].marker.visible = pool[k].arrow.visible = false;
    }
    return { place };
  }

  function animation(THREE, data) {
    const s = data.series;
    const stage = $('stage');
    const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    renderer.setSize(stage.clientWidth, stage.clientHeight);
    stage.append(renderer.domElement);
    const scene3 = new THREE.Scene();
    scene3.background = new THREE.Color(0xffffff);
    const up = new THREE.Vector3().fromArray(data.scene.up).normalize();

    // size of the scene, from the motion itself
    const rough = bounds(THREE, data, 1);
    const scale = Math.max(rough.box.getSize(new THREE.Vector3()).length(), 0.1);
    const { box, low } = bounds(THREE, data, scale);
    const centre = box.getCenter(new THREE.Vector3());
    const radius = Math.max(0.5 * box.getSize(new THREE.Vector3()).length(), 0.2);

    // ground: a grid through the lowest point reached, normal to up; world axes
    const grid = new THREE.GridHelper(4 * radius, 20, 0x9aa6bf, 0xd5d9e0);
    grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
    const ground = centre.clone().sub(up.clone().multiplyScalar(centre.dot(up) - low));
    grid.position.copy(ground);
    scene3.add(grid);
    scene3.add(new THREE.AxesHelper(0.4 * radius));
    scene3.add(new THREE.HemisphereLight(0xffffff, 0xb0bccc, 2.4));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.copy(up.clone().multiplyScalar(3 * radius).add(new THREE.Vector3(radius, radius, 0)));
    scene3.add(sun);

    const meshes = data.scene.bodies.map((body, b) => {
      const m = bodyMesh(THREE, body, body.color || PALETTE[b % PALETTE.length], scale);
      scene3.add(m);
      return m;
    });
    // the shapes: in their body's group (posed with it), the world's in the scene
    const shapes = bodyGeometry(THREE, data,
      (b) => data.scene.bodies[b].color || PALETTE[b % PALETTE.length], 4 * radius, centre);
    shapes.forEach((g, k) => {
      for (const o of g.visual.concat(g.collision)) (k === 0 ? scene3 : meshes[k - 1]).add(o);
    });
    // mode: 'geometry' (visual shapes, else collision shapes, else the inertia box),
    // 'collision' (collision shapes, else the inertia box) or 'inertia'
    function setBodies(mode) {
      const drawn = {};
      let inertia = 0;
      let ground = false;
      shapes.forEach((g, k) => {
        let show = [];
        if (mode === 'geometry') show = g.visual.length ? g.visual : g.collision;
        else if (mode === 'collision' || k === 0) show = g.collision;
        for (const o of g.visual.concat(g.collision)) o.visible = show.includes(o);
        for (const o of show) {
          drawn[o.userData.kind] = (drawn[o.userData.kind] || 0) + 1;
          if (k === 0 && o.userData.kind === 'plane') ground = true;
        }
        if (k > 0) {
          const box = meshes[k - 1].userData.inertia;
          box.visible = show.length === 0;
          if (box.visible) inertia += 1;
        }
      });
      grid.visible = !ground; // a world plane is the ground
      state.geometry = {
        mode, drawn, inertia,
        shapes: (data.geometry && data.geometry.shapes.length) || 0,
        meshes: (data.geometry && data.geometry.meshes.length) || 0,
        triangles: ((data.geometry && data.geometry.meshes) || []).reduce((a, m) => a + m.triangles, 0),
      };
    }
    const menu = $('bodies');
    setBodies(menu ? menu.value : 'geometry');
    if (menu) menu.addEventListener('change', () => { setBodies(menu.value); render(); });
    const notes = (data.geometry && data.geometry.notes) || [];
    if (notes.length && $('geometry-notes')) {
      $('geometry-notes').hidden = false;
      $('geometry-notes').textContent = notes.join('; ');
    }
    const items = links(THREE, data, scene3, scale);
    const contacts = contactLayer(THREE, data, scene3, scale);
    // each centre of mass's path over the whole run, faint
    data.scene.bodies.forEach((body, b) => {
      const path = s.t.map((_, i) => pose(THREE, s, b, i).x);
      scene3.add(new THREE.Line(new THREE.BufferGeometry().setFromPoints(path),
        new THREE.LineBasicMaterial({ color: body.color || PALETTE[b % PALETTE.length], transparent: true, opacity: 0.35 })));
    });

    // the camera looks across the motion's thinnest horizontal direction (a planar
    // mechanism is seen face on), a little from above; drag turns it, the wheel zooms
    const size = box.getSize(new THREE.Vector3());
    const horizontal = [new THREE.Vector3(1, 0, 0), new THREE.Vector3(0, 1, 0), new THREE.Vector3(0, 0, 1)]
      .filter((a) => Math.abs(a.dot(up)) < 0.9)
      .sort((a, b) => Math.abs(size.dot(a)) - Math.abs(size.dot(b)));
    const camera = new THREE.PerspectiveCamera(40, stage.clientWidth / stage.clientHeight, 0.01 * radius, 100 * radius);
    camera.up.copy(up);
    let distance = 3.2 * radius;
    let azimuth = 0;
    let elevation = 0.35;
    const view = horizontal[0].clone().negate();
    const side = new THREE.Vector3().crossVectors(up, view).normalize();
    function placeCamera() {
      const dir = view.clone().multiplyScalar(Math.cos(azimuth))
        .add(side.clone().multiplyScalar(Math.sin(azimuth)))
        .multiplyScalar(Math.cos(elevation)).add(up.clone().multiplyScalar(Math.sin(elevation)));
      camera.position.copy(centre).add(dir.multiplyScalar(distance));
      camera.lookAt(centre);
    }
    let drag = null;
    renderer.domElement.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY }; });
    window.addEventListener('pointerup', () => { drag = null; });
    window.addEventListener('pointermove', (e) => {
      if (!drag) return;
      azimuth -= 0.01 * (e.clientX - drag.x);
      elevation = Math.max(-1.5, Math.min(1.5, elevation + 0.01 * (e.clientY - drag.y)));
      drag = { x: e.clientX, y: e.clientY };
      placeCamera();
      render();
    });
    renderer.domElement.addEventListener('wheel', (e) => {
      e.preventDefault();
      distance *= Math.exp(0.001 * e.deltaY);
      placeCamera();
      render();
    }, { passive: false });

    let index = 0;
    function render() { renderer.render(scene3, camera); }
    function show(i) {
      index = i;
      meshes.forEach((m, b) => {
        const p = pose(THREE, s, b, i);
        m.position.copy(p.x);
        m.quaternion.copy(p.q);
      });
      placeLinks(THREE, data, items, i);
      contacts.place(i);
      render();
    }
    window.addEventListener('resize', () => {
      renderer.setSize(stage.clientWidth, stage.clientHeight);
      camera.aspect = stage.clientWidth / stage.clientHeight;
      camera.updateProjectionMatrix();
      render();
    });
    placeCamera();
    show(0);
    return { show, canvas: renderer.domElement, index: () => index,
      setBodies: (mode) => { setBodies(mode); render(); } };
  }

  // ---- playback -----------------------------------------------------------------------
  function playback(anim, t, onTime) {
    const last = t.length - 1;
    const duration = t[last] - t[0];
    let playing = true;
    let now = t[0];
    let before = null;
    const at = (time) => { // the last instant not after `time`
      let lo = 0;
      let hi = last;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (t[mid] <= time) lo = mid; else hi = mid - 1;
      }
      return lo;
    };
    function seek(time) {
      now = Math.max(t[0], Math.min(t[last], time));
      const i = at(now);
      anim.show(i);
      $('slider').value = String(duration > 0 ? Math.round(1000 * (now - t[0]) / duration) : 0);
      $('clock').textContent = 't = ' + now.toFixed(3) + ' s';
      onTime(t[i]);
    }
    function frame(ms) {
      if (playing && before !== null && last > 0) {
        let next = now + Number($('speed').value) * (ms - before) / 1000;
        if (next > t[last]) next = t[0]; // loop
        seek(next);
      }
      before = ms;
      requestAnimationFrame(frame);
    }
    $('play').addEventListener('click', () => {
      playing = !playing;
      $('play').textContent = playing ? 'Pause' : 'Play';
    });
    $('slider').addEventListener('input', () => seek(t[0] + duration * Number($('slider').value) / 1000));
    requestAnimationFrame(frame);
    return { seek, time: () => now, playing: () => playing };
  }

  // ---- the charts ---------------------------------------------------------------------
  // numbers far from 1 (drifts, violations) in exponent form, the others plainly
  function fmt(v) {
    if (v === null || v === undefined) return '—';
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(2);
    return String(Number(v.toPrecision(4)));
  }

  function chart(title, t, lines, onPick) {
    const box = document.createElement('div');
    box.className = 'plot';
    $('plots').append(box);
    const opts = {
      title,
      width: Math.max(box.clientWidth - 12, 300),
      height: 240,
      scales: { x: { time: false } },
      series: [{ label: 't (s)' }].concat(lines.map((l, k) => ({
        label: l.label, stroke: PALETTE[k % PALETTE.length], width: 1.5,
        value: (u, v) => fmt(v),
      }))),
      axes: [{ label: 't (s)' }, { size: 76, values: (u, splits) => splits.map(fmt) }],
      legend: { live: true },
    };
    const u = new uPlot(opts, [t].concat(lines.map((l) => l.values)), box);
    u.over.addEventListener('click', (e) => onPick(u.posToVal(e.offsetX, 'x')));
    window.addEventListener('resize', () => u.setSize({ width: Math.max(box.clientWidth - 12, 300), height: 240 }));
    state.plots += 1;
    return u;
  }

  // Revolute joint angles from the bodies' rotations: the child's rotation relative to the
  // parent, R(t) = Q_Pᵀ Q_C, is R(t) = Δ(θ) R(0) with Δ the rotation by θ about the axis
  // a_P fixed in the parent; from Δ's quaternion (cos θ/2, sin θ/2 a_P), θ = 2 atan2(v·a_P, w),
  // unwrapped to a continuous curve.
  function jointAngles(THREE, data) {
    const s = data.series;
    const lines = [];
    for (const link of data.scene.links) {
      if (link.type !== 'revolute' || !link.axis_local) continue;
      const [p, c] = link.points.map((pt) => pt.body);
      const rot = (b, i) => (b < 0 ? new THREE.Quaternion() : pose(THREE, s, b, i).q);
      const rel = (i) => rot(p, i).invert().multiply(rot(c, i));
      const rel0inv = rel(0).invert();
      const axis = new THREE.Vector3().fromArray(link.axis_local).normalize(); // parent's frame
      const values = [];
      let prev = 0;
      for (let i = 0; i < s.t.length; ++i) {
        const d = rel(i).multiply(rel0inv);
        let th = 2 * Math.atan2(d.x * axis.x + d.y * axis.y + d.z * axis.z, d.w);
        while (th - prev > Math.PI) th -= 2 * Math.PI;
        while (th - prev < -Math.PI) th += 2 * Math.PI;
        values.push(th);
        prev = th;
      }
      lines.push({ label: link.name, values });
    }
    return lines;
  }

  function charts(THREE, data, onPick) {
    const s = data.series;
    const t = s.t;
    const specs = [
      ['Energy (J)', [{ label: 'E', values: s.energy }]],
      ['Energy drift E(t) − E(0) (J)', [{ label: 'E − E0', values: s.energy_drift }]],
      ['Constraint violation', [
        { label: 'position (max |g|)', values: s.violation_position },
        { label: 'velocity (max |π|)', values: s.violation_velocity }]],
    ];
    if (s.forces.length) {
      specs.push(['Constraint force magnitude |f| (N)',
        s.forces.map((f) => ({ label: f.name, values: f.values }))]);
    }
    const positions = [];
    data.scene.bodies.forEach((body, b) => {
      ['x', 'y', 'z'].forEach((axis, k) => positions.push({
        label: body.name + '.' + axis, values: t.map((_, i) => s.pose[b][7 * i + k]),
      }));
    });
    specs.push(['Body positions (m)', positions]);
    const angles = jointAngles(THREE, data);
    if (angles.length) specs.push(['Revolute joint angles from t = 0 (rad)', angles]);
    state.expectedPlots = specs.length;
    state.charts = specs.map(([title, lines]) => ({ title, lines }));
    return specs.map(([title, lines]) => chart(title, t, lines, onPick));
  }

  async function main() {
    const data = JSON.parse($('appell-data').textContent);
    header(data.meta, data.series);
    const source = $('three-module').textContent.replace(/<\\\//g, '</');
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    const THREE = await import(url);
    URL.revokeObjectURL(url);
    const anim = animation(THREE, data);
    let plots = [];
    const player = playback(anim, data.series.t, (time) => {
      for (const u of plots) u.setCursor({ left: u.valToPos(time, 'x'), top: -10 });
    });
    plots = charts(THREE, data, (time) => player.seek(time));
    Object.assign(state, { seek: player.seek, time: player.time, canvas: anim.canvas,
      setBodies: anim.setBodies, ready: true });
  }

  main().catch((e) => {
    console.error('appell report: ' + (e && e.stack ? e.stack : e));
    $('status').hidden = false;
    $('status').textContent = 'the report could not be drawn: ' + e;
  });
})();
