// The bodies' geometry (data.geometry, cli/report_geometry.cpp) as three.js objects.
// One part of the page's script (report.js).
//
// Each body is drawn by its visual shapes when it has some, else by its collision
// shapes, else by its inertia box; the "bodies" menu shows the collision shapes or the
// inertia boxes instead.  World shapes are drawn fixed; a world plane is the ground.

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
