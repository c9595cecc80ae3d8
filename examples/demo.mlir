// One step of a tiny RNN, as Janus speculates it from this Python (model.py):
//
//    class RNN:
//        def step(self, x):
//            if self.steps >= self.max_steps:                # line 11
//                raise RuntimeError("too many steps")        # never raised when profiled
//            h = np.tanh(self.w @ x + self.u @ self.state)
//            self.state = h
//            self.steps += 1
//            return self.readout(h)
//
//        def readout(self, h):
//            return self.v @ h
//
// `self` is argument slot 0. Attribute reads and writes go through the shadow heap: they
// reach Python only when the whole step succeeds. The `raise` was never taken while
// profiling, so the graph assumes it is not, and a janus.guard checks that at run time.

func.func @step(%x: tensor<8xf32>) -> tensor<f32> {
  %self = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj

  // if self.steps >= self.max_steps: raise ...   (speculated: not taken)
  %steps = "janus.get_attr"(%self) {name = "steps"} : (!janus.obj) -> i64
  %max = "janus.get_attr"(%self) {name = "max_steps"} : (!janus.obj) -> i64
  %ok = arith.cmpi slt, %steps, %max : i64
  "janus.guard"(%ok) {id = 0, kind = "raise", source = "model.py:11"} : (i1) -> ()

  // h = np.tanh(self.w @ x + self.u @ self.state)
  %w = "janus.get_attr"(%self) {name = "w"} : (!janus.obj) -> tensor<8x8xf32>
  %u = "janus.get_attr"(%self) {name = "u"} : (!janus.obj) -> tensor<8x8xf32>
  %state = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %empty0 = tensor.empty() : tensor<8xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%empty0 : tensor<8xf32>) -> tensor<8xf32>
  %wx = linalg.matvec ins(%w, %x : tensor<8x8xf32>, tensor<8xf32>) outs(%acc0 : tensor<8xf32>) -> tensor<8xf32>
  // The generator emits a fresh zero accumulator per product; cse will share them.
  %empty1 = tensor.empty() : tensor<8xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%empty1 : tensor<8xf32>) -> tensor<8xf32>
  %uh = linalg.matvec ins(%u, %state : tensor<8x8xf32>, tensor<8xf32>) outs(%acc1 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.map { arith.addf } ins(%wx, %uh : tensor<8xf32>, tensor<8xf32>) outs(%empty0 : tensor<8xf32>)
  %h = linalg.map { math.tanh } ins(%sum : tensor<8xf32>) outs(%empty0 : tensor<8xf32>)

  // self.state = h; self.steps += 1
  "janus.set_attr"(%self, %h) {name = "state"} : (!janus.obj, tensor<8xf32>) -> ()
  %one = arith.constant 1 : i64
  %next = arith.addi %steps, %one : i64
  "janus.set_attr"(%self, %next) {name = "steps"} : (!janus.obj, i64) -> ()

  // return self.readout(h)
  %y = "janus.invoke"(%h) {callee = @readout} : (tensor<8xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

func.func private @readout(%h: tensor<8xf32>) -> tensor<f32> {
  %self = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj
  %v = "janus.get_attr"(%self) {name = "v"} : (!janus.obj) -> tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %y = linalg.dot ins(%v, %h : tensor<8xf32>, tensor<8xf32>) outs(%acc : tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
