// A stateful layer, as Python would write it:
//
//   def step(self, x, scale):            # model.py:18
//       self.state = self.state * scale + x
//       self.steps = self.steps + 1
//       assert scale > 0                 # guard 1, after the writes
//       return self.state
//
// The guard fails after both writes were made to the shadow heap: a failure must still
// leave `self` exactly as it was (all or nothing).
func.func @step(%x: tensor<4xf32>, %scale: f32) -> tensor<4xf32> {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %state = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> tensor<4xf32>
  %empty = tensor.empty() : tensor<4xf32>
  %factor = linalg.fill ins(%scale : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %scaled = arith.mulf %state, %factor : tensor<4xf32>
  %new_state = arith.addf %scaled, %x : tensor<4xf32>
  "janus.set_attr"(%self, %new_state) {name = "state"} : (!janus.obj, tensor<4xf32>) -> ()
  %steps = "janus.get_attr"(%self) {name = "steps"} : (!janus.obj) -> i64
  %one = arith.constant 1 : i64
  %new_steps = arith.addi %steps, %one : i64
  "janus.set_attr"(%self, %new_steps) {name = "steps"} : (!janus.obj, i64) -> ()
  %zero = arith.constant 0.0 : f32
  %positive = arith.cmpf ogt, %scale, %zero : f32
  "janus.guard"(%positive) {id = 1 : i64, kind = "value", source = "model.py:22"} : (i1) -> ()
  return %new_state : tensor<4xf32>
}
