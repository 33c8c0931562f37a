'use strict';
// A small builder of ONNX models in memory, encoded with the onnx-proto package (protobufjs
// classes generated from onnx.proto). One graph: typed inputs without shapes (so one session
// serves every shape), initializers for constants (raw little-endian bytes, exact for int64),
// nodes, one int32 output.
const { requireDep } = require('../js-deps/deps');

const { onnx } = requireDep('onnx-proto');
const DT = onnx.TensorProto.DataType;
const OPSET = 18;  // axes of the Reduce* operators are inputs from 18 on

const ELEM = { int8: DT.INT8, int32: DT.INT32, int64: DT.INT64, bool: DT.BOOL, uint8: DT.UINT8 };

class Graph {
  constructor() {
    this.nodes = [];
    this.inputs = [];
    this.initializers = [];
    this.count = 0;
  }

  fresh(prefix) { return `${prefix}${this.count++}`; }

  input(dtype) {
    const name = `in${this.inputs.length}`;
    this.inputs.push(onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: ELEM[dtype] } } }));
    return name;
  }

  // A constant tensor: dtype 'int32' or 'int64' (values: numbers or BigInts), dims ([] scalar).
  constant(dtype, dims, values) {
    const name = this.fresh('c');
    let raw;
    if (dtype === 'int64') {
      raw = Buffer.from(BigInt64Array.from(values, (v) => BigInt(v)).buffer);
    } else if (dtype === 'int32') {
      raw = Buffer.from(Int32Array.from(values).buffer);
    } else {
      throw new Error(`constant of dtype ${dtype}`);
    }
    this.initializers.push(onnx.TensorProto.create({ name, dims, dataType: ELEM[dtype], rawData: raw }));
    return name;
  }

  ints(values) { return this.constant('int64', [values.length], values); }
  scalar32(v) { return this.constant('int32', [], [v]); }
  scalar64(v) { return this.constant('int64', [], [v]); }

  // One node; attrs: {name: number | number[] | string}. Returns its output's name.
  node(opType, inputs, attrs = {}) {
    const output = this.fresh('t');
    const attribute = Object.entries(attrs).map(([name, v]) => {
      if (Array.isArray(v)) return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v };
      if (typeof v === 'string') return { name, type: onnx.AttributeProto.AttributeType.STRING, s: Buffer.from(v) };
      return { name, type: onnx.AttributeProto.AttributeType.INT, i: v };
    });
    this.nodes.push(onnx.NodeProto.create({ opType, input: inputs, output: [output], attribute }));
    return output;
  }

  cast(name, dtype) { return this.node('Cast', [name], { to: ELEM[dtype] }); }

  // The graph's bytes with `output` (int32) as its one output.
  encode(output) {
    const graph = onnx.GraphProto.create({
      name: 'cvmcheck_call',
      node: this.nodes,
      input: this.inputs,
      initializer: this.initializers,
      output: [onnx.ValueInfoProto.create({ name: output, type: { tensorType: { elemType: DT.INT32 } } })],
    });
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'cvmcheck-onnxruntime-adapter',
      opsetImport: [{ domain: '', version: OPSET }],
      graph,
    });
    return Buffer.from(onnx.ModelProto.encode(model).finish());
  }
}

module.exports = { Graph, OPSET };
