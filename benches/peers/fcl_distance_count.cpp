// FCL's own work per distance query: the BV tests and leaf (triangle) tests of its OBBRSS
// distance traversal, per pose, beside its time. python-fcl does not expose these counts;
// this reads them from FCL's traversal node (`enable_statistics`), so that meshcollide's
// Nv and Np can be compared with FCL's on the same poses (docs/notebook/proximity.md,
// "Sitting 5"). Single-threaded, the same call path as `fcl::distance` (initialize, then
// the traversal with FCL's default queue size 2).
//
// Build (Debian/Ubuntu; Eigen's vectorization must match the library's, so no -march):
//   apt-get install -y libfcl-dev g++
//   g++ -O2 -I/usr/include/eigen3 benches/peers/fcl_distance_count.cpp -o target/fcl_distance_count -lfcl -lccd
// Run (meshes as OBJ, poses as meshcollide's poses.csv, applied to B):
//   taskset -c 1 target/fcl_distance_count A.obj B.obj poses.csv
// Prints the first three poses' distance and counts, then per pose on average: BV tests,
// leaf tests and milliseconds.
#include <fcl/fcl.h>
#include <fcl/narrowphase/detail/traversal/distance/mesh_distance_traversal_node.h>
#include <fcl/narrowphase/detail/traversal/traversal_recurse.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace fcl;

// Vertices and faces of an OBJ file (polygons fanned from their first corner).
static bool load_obj(const char* path, std::vector<Vector3d>& v, std::vector<Triangle>& t) {
  std::ifstream f(path);
  if (!f) return false;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream s(line);
    std::string k;
    s >> k;
    if (k == "v") {
      double x, y, z;
      s >> x >> y >> z;
      v.emplace_back(x, y, z);
    } else if (k == "f") {
      std::vector<int> id;
      std::string w;
      while (s >> w) id.push_back(std::stoi(w.substr(0, w.find('/'))) - 1);
      for (size_t i = 1; i + 1 < id.size(); ++i) t.emplace_back(id[0], id[i], id[i + 1]);
    }
  }
  return true;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s A.obj B.obj poses.csv\n", argv[0]);
    return 2;
  }
  std::vector<Vector3d> va, vb;
  std::vector<Triangle> ta, tb;
  if (!load_obj(argv[1], va, ta) || !load_obj(argv[2], vb, tb)) {
    fprintf(stderr, "cannot read a mesh\n");
    return 2;
  }
  BVHModel<OBBRSSd> ma, mb;
  ma.beginModel();
  ma.addSubModel(va, ta);
  ma.endModel();
  mb.beginModel();
  mb.addSubModel(vb, tb);
  mb.endModel();
  std::ifstream pf(argv[3]);
  std::string line;
  std::getline(pf, line);  // qw,qx,qy,qz,tx,ty,tz
  long bv = 0, leaf = 0;
  int n = 0;
  double secs = 0;
  while (std::getline(pf, line)) {
    if (line.empty()) continue;
    double q[7];
    char comma;
    std::istringstream s(line);
    s >> q[0];
    for (int i = 1; i < 7; ++i) s >> comma >> q[i];
    Transform3d tfa = Transform3d::Identity();
    Transform3d tfb = Transform3d::Identity();
    tfb.linear() = Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
    tfb.translation() = Vector3d(q[4], q[5], q[6]);
    DistanceRequestd req(true);
    DistanceResultd res;
    detail::MeshDistanceTraversalNodeOBBRSS<double> node;
    node.enable_statistics = true;
    auto t0 = std::chrono::steady_clock::now();
    detail::initialize(node, ma, tfa, mb, tfb, req, res);
    detail::distance(&node, nullptr, 2);
    secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bv += node.num_bv_tests;
    leaf += node.num_leaf_tests;
    if (n < 3)
      printf("pose %d: distance %.17g, bv tests %d, leaf tests %d\n", n, res.min_distance,
             node.num_bv_tests, node.num_leaf_tests);
    ++n;
  }
  if (n == 0) return 2;
  printf("poses %d: bv tests/pose %.1f, leaf tests/pose %.1f, ms/pose %.4f\n", n,
         double(bv) / n, double(leaf) / n, 1e3 * secs / n);
  return 0;
}
