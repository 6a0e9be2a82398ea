// The 3-D view: the bodies, their paths, joints, rods, springs and markers, the ground,
// lights and the camera, posed at one instant of the run.  One part of the page's script
// (report.js).

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

// the renderer, in the page's stage
function stageRenderer(THREE) {
  const stage = $('stage');
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setSize(stage.clientWidth, stage.clientHeight);
  stage.append(renderer.domElement);
  return { stage, renderer };
}

// ground: a grid through the lowest point reached, normal to up; world axes; the lights
function groundAndLights(THREE, scene3, up, frame) {
  const { centre, radius, low } = frame;
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
  return grid;
}

// the bodies' meshes, posed by show(); their shapes in their body's group (posed with it),
// the world's in the scene.  setBodies(mode) picks what draws them: 'geometry' (visual
// shapes, else collision shapes, else the inertia box), 'collision' (collision shapes, else
// the inertia box) or 'inertia'; a world plane drawn hides the grid
function bodyLayer(THREE, data, scene3, scale, frame, grid) {
  const colour = (b) => data.scene.bodies[b].color || PALETTE[b % PALETTE.length];
  const meshes = data.scene.bodies.map((body, b) => {
    const m = bodyMesh(THREE, body, colour(b), scale);
    scene3.add(m);
    return m;
  });
  const shapes = bodyGeometry(THREE, data, colour, 4 * frame.radius, frame.centre);
  shapes.forEach((g, k) => {
    for (const o of g.visual.concat(g.collision)) (k === 0 ? scene3 : meshes[k - 1]).add(o);
  });
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
    grid.visible = !ground;
    state.geometry = {
      mode, drawn, inertia,
      shapes: (data.geometry && data.geometry.shapes.length) || 0,
      meshes: (data.geometry && data.geometry.meshes.length) || 0,
      triangles: ((data.geometry && data.geometry.meshes) || []).reduce((a, m) => a + m.triangles, 0),
    };
  }
  return { meshes, setBodies };
}

// each centre of mass's path over the whole run, faint
function paths(THREE, data, scene3) {
  const s = data.series;
  data.scene.bodies.forEach((body, b) => {
    const path = s.t.map((_, i) => pose(THREE, s, b, i).x);
    scene3.add(new THREE.Line(new THREE.BufferGeometry().setFromPoints(path),
      new THREE.LineBasicMaterial({ color: body.color || PALETTE[b % PALETTE.length], transparent: true, opacity: 0.35 })));
  });
}

// the camera looks across the motion's thinnest horizontal direction (a planar
// mechanism is seen face on), a little from above; drag turns it, the wheel zooms, and
// each move calls rerender()
function orbitCamera(THREE, renderer, stage, up, box, frame, rerender) {
  const { centre, radius } = frame;
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
  function place() {
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
    place();
    rerender();
  });
  renderer.domElement.addEventListener('wheel', (e) => {
    e.preventDefault();
    distance *= Math.exp(0.001 * e.deltaY);
    place();
    rerender();
  }, { passive: false });
  place();
  return camera;
}

// the view of the run: show(i) poses it at instant i, setBodies(mode) picks what draws
// the bodies (the "bodies" menu)
function animation(THREE, data) {
  const s = data.series;
  const { stage, renderer } = stageRenderer(THREE);
  const scene3 = new THREE.Scene();
  scene3.background = new THREE.Color(0xffffff);
  const up = new THREE.Vector3().fromArray(data.scene.up).normalize();

  // size of the scene, from the motion itself
  const rough = bounds(THREE, data, 1);
  const scale = Math.max(rough.box.getSize(new THREE.Vector3()).length(), 0.1);
  const { box, low } = bounds(THREE, data, scale);
  const frame = {
    centre: box.getCenter(new THREE.Vector3()),
    radius: Math.max(0.5 * box.getSize(new THREE.Vector3()).length(), 0.2),
    low,
  };
  const grid = groundAndLights(THREE, scene3, up, frame);
  const { meshes, setBodies } = bodyLayer(THREE, data, scene3, scale, frame, grid);
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
  paths(THREE, data, scene3);
  const camera = orbitCamera(THREE, renderer, stage, up, box, frame, () => render());

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
  show(0);
  return { show, canvas: renderer.domElement, index: () => index,
    setBodies: (mode) => { setBodies(mode); render(); } };
}
