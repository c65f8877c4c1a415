console.log("hello");
